/**
 * The post page's comments (docs/decisions.md §18): everyone reads them, oldest first, a page at a time;
 * holders of 0x4000 get a form; authors edit and delete their own, moderators delete any.
 */
import { api, can, errorText, ok, PERMISSION, type Post, type Self } from '../api.ts';
import { commentItem, type Comment } from '../comment-item.ts';
import { h, messageBox } from '../dom.ts';

const PAGE = 100;

export function commentsSection(post: Post, self: Self | undefined): HTMLElement {
  let count = post.comments;
  const heading = h('h2', { id: 'comments-h' });
  const drawCount = () => {
    heading.textContent = count === 1 ? '1 comment' : `${count} comments`;
  };
  drawCount();
  const list = h('ol', { class: 'comments', 'aria-labelledby': 'comments-h' });
  const msg = messageBox();
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show more comments');
  const onDeleted = () => {
    count--;
    drawCount();
  };
  const add = (c: Comment) => list.append(commentItem(c, { self, onDeleted }));
  let loaded = 0;
  const load = async () => {
    try {
      const page = await ok(
        api.GET('/api/post/{id}/comment', {
          params: { path: { id: post.id }, query: { offset: loaded, limit: PAGE } },
        }),
      );
      page.data.forEach(add);
      loaded += page.data.length;
      count = page.count;
      drawCount();
      more.hidden = loaded >= page.count;
    } catch (err) {
      msg.error(errorText(err));
    }
  };
  more.addEventListener('click', () => void load());
  void load();
  return h(
    'section',
    { class: 'comments-section', 'aria-labelledby': 'comments-h' },
    heading,
    list,
    more,
    msg.el,
    commentForm(post, self, (c) => {
      add(c);
      loaded++;
      count++;
      drawCount();
    }),
  );
}

function commentForm(post: Post, self: Self | undefined, added: (c: Comment) => void): HTMLElement {
  if (!self)
    return h(
      'p',
      { class: 'muted' },
      h('a', { href: `/login?next=${encodeURIComponent(location.pathname)}` }, 'Log in'),
      ' to comment.',
    );
  if (!can(self, PERMISSION.comment)) return h('p', { class: 'muted' }, 'Your account may not comment.');
  const msg = messageBox();
  const area = h('textarea', { id: 'comment-body', name: 'body', rows: 4, required: true });
  const send = h('button', { type: 'submit' }, 'Post comment');
  const form = h(
    'form',
    { class: 'stack comment-form' },
    h('label', { for: area.id }, 'Your comment'),
    h(
      'p',
      { class: 'muted', id: 'comment-help' },
      'Plain text: line breaks are kept, web addresses and "post #123" become links.',
    ),
    area,
    send,
    msg.el,
  );
  area.setAttribute('aria-describedby', 'comment-help');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    send.disabled = true;
    try {
      const c = await ok(
        api.POST('/api/post/{id}/comment', { params: { path: { id: post.id } }, body: { body: area.value } }),
      );
      area.value = '';
      msg.info('Comment posted.');
      added(c);
    } catch (err) {
      msg.error(errorText(err));
    } finally {
      send.disabled = false;
    }
  });
  return form;
}
