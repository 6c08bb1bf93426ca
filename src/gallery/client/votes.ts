/**
 * The post page's votes (docs/decisions.md §18): ▲ and ▼ toggles (aria-pressed) around the score. Pressing
 * the other one replaces the vote; pressing the pressed one takes it back. Visitors are sent to log in.
 */
import { api, errorText, ok, type Post, type Self } from './api.ts';
import { h, type messageBox } from './dom.ts';

export function voteButtons(post: Post, self: Self | undefined, msg: ReturnType<typeof messageBox>): HTMLElement {
  let counts = { score: post.score, upvotes: post.upvotes, downvotes: post.downvotes };
  let mine: 1 | -1 | 0 = 0;
  const up = h('button', { type: 'button', id: 'vote-up', class: 'secondary vote', 'aria-pressed': 'false' });
  const down = h('button', { type: 'button', id: 'vote-down', class: 'secondary vote', 'aria-pressed': 'false' });
  const score = h('output', { id: 'score', 'aria-live': 'polite' });
  const draw = () => {
    up.textContent = `▲ Up (${counts.upvotes})`;
    down.textContent = `▼ Down (${counts.downvotes})`;
    up.setAttribute('aria-pressed', String(mine === 1));
    down.setAttribute('aria-pressed', String(mine === -1));
    score.textContent = `Score ${counts.score}`;
  };
  draw();
  const path = { params: { path: { id: post.id } } };
  const press = async (value: 1 | -1) => {
    if (!self) return location.assign(`/login?next=${encodeURIComponent(location.pathname)}`);
    for (const b of [up, down]) b.setAttribute('aria-busy', 'true');
    try {
      if (mine === value) {
        await ok(api.DELETE('/api/post/{id}/vote', path));
        // the counts without the caller's vote, as the server now has them
        counts = {
          upvotes: counts.upvotes - (value === 1 ? 1 : 0),
          downvotes: counts.downvotes - (value === -1 ? 1 : 0),
          score: counts.score - value,
        };
        mine = 0;
        msg.info('Vote taken back.');
      } else {
        const { value: now, ...after } = await ok(api.PUT('/api/post/{id}/vote', { ...path, body: { value } }));
        counts = after;
        mine = now;
        msg.info(now === 1 ? 'Voted up.' : 'Voted down.');
      }
      draw();
    } catch (err) {
      msg.error(errorText(err));
    } finally {
      for (const b of [up, down]) b.removeAttribute('aria-busy');
    }
  };
  up.addEventListener('click', () => void press(1));
  down.addEventListener('click', () => void press(-1));
  if (self)
    void ok(api.GET('/api/post/{id}/vote', path)).then(
      (v) => {
        mine = v.value;
        draw();
      },
      () => {},
    );
  return h('p', { class: 'actions votes', role: 'group', 'aria-label': 'Votes' }, up, ' ', score, ' ', down);
}
