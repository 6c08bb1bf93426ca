/**
 * `/moderation`: the pending deletion requests (docs/decisions.md §15) for holders of 0x2000, each with the
 * post's thumbnail, the reason, who asked and when, and approve (deletes the post) or dismiss.
 * Anyone else signed in sees their own requests here, and may revoke those still pending.
 */
import { api, can, errorText, ok, PERMISSION, type Schemas, type Self } from '../api.ts';
import { formatDate, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentUser } from '../session.ts';

type DeletionRequest = Schemas['DeletionRequest'];

const thumb = (r: DeletionRequest) =>
  r.post
    ? h(
        'a',
        { href: `/post/${r.post.id}` },
        h('img', {
          src: r.post.thumbnails['320'],
          alt: `Post ${r.postId.slice(0, 8)} (requested for deletion)`,
          width: 160,
          height: 160,
          loading: 'lazy',
        }),
      )
    : h('p', { class: 'muted' }, 'The post is already gone.');

function card(r: DeletionRequest, actions: Action[]): HTMLElement {
  const msg = messageBox();
  const li = h(
    'li',
    { class: 'card request', 'data-request': r.id },
    thumb(r),
    h(
      'div',
      {},
      h(
        'h3',
        {},
        r.post ? h('a', { href: `/post/${r.postId}` }, `Post ${r.postId.slice(0, 8)}`) : `Post ${r.postId.slice(0, 8)}`,
      ),
      h('p', { class: 'reason' }, r.reason),
      h(
        'p',
        { class: 'muted' },
        'Asked by ',
        h('strong', {}, r.requester.name),
        ' on ',
        h('time', { datetime: r.createdAt }, formatDate(r.createdAt)),
      ),
      r.decidedBy && r.decidedAt
        ? h(
            'p',
            { class: 'muted' },
            `${r.status[0].toUpperCase()}${r.status.slice(1)} by ${r.decidedBy.name} on `,
            h('time', { datetime: r.decidedAt }, formatDate(r.decidedAt)),
          )
        : null,
      actions.length ? h('div', { class: 'actions' }, actions) : null,
      msg.el,
    ),
  );
  // Each action reports into its own card; on success the card says what happened and loses its buttons.
  for (const button of actions) {
    button.addEventListener('click', async () => {
      for (const b of actions) b.disabled = true;
      msg.info('Working…');
      try {
        const done = await button.run();
        actions.forEach((b) => b.remove());
        msg.info(
          done.status === 'approved'
            ? 'Approved: the post was deleted.'
            : done.status === 'moot'
              ? 'Closed: the post was already gone.'
              : `Request ${done.status}.`,
        );
      } catch (err) {
        for (const b of actions) b.disabled = false;
        msg.error(errorText(err));
      }
    });
  }
  return li;
}

type Action = HTMLButtonElement & { run: () => Promise<DeletionRequest> };

function action(label: string, cls: string, accessible: string, run: () => Promise<DeletionRequest>): Action {
  return Object.assign(h('button', { type: 'button', class: cls, 'aria-label': accessible }, label), { run });
}

const decide = (r: DeletionRequest, what: 'approve' | 'dismiss' | 'revoke') => () =>
  ok(api.POST(`/api/deletion-request/{id}/${what}`, { params: { path: { id: String(r.id) } } }));

export async function moderationPage(): Promise<void> {
  const self: Self | undefined = await currentUser().catch(() => undefined);
  if (!self) {
    replace(
      main(),
      pageHeading('Moderation'),
      h(
        'p',
        {},
        h('a', { href: `/login?next=${encodeURIComponent('/moderation')}` }, 'Log in'),
        ' to see deletion requests.',
      ),
    );
    return;
  }
  const moderator = can(self, PERMISSION.delete);
  const page = await ok(
    api.GET('/api/deletion-request', {
      params: { query: moderator ? { status: 'pending', limit: 100 } : { limit: 100 } },
    }),
  );
  const items = page.data.map((r) => {
    const short = r.postId.slice(0, 8);
    if (moderator)
      return card(r, [
        action(
          'Approve (delete post)',
          'danger',
          `Approve the request for post ${short}: delete the post`,
          decide(r, 'approve'),
        ),
        action('Dismiss', 'secondary', `Dismiss the request for post ${short}: keep the post`, decide(r, 'dismiss')),
      ]);
    return card(
      r,
      r.status === 'pending'
        ? [action('Revoke', 'secondary', `Revoke your request for post ${short}`, decide(r, 'revoke'))]
        : [],
    );
  });
  replace(
    main(),
    pageHeading(moderator ? 'Moderation' : 'Your deletion requests'),
    h(
      'p',
      { class: 'count' },
      moderator
        ? `${page.count} pending deletion ${page.count === 1 ? 'request' : 'requests'}`
        : `${page.count} ${page.count === 1 ? 'request' : 'requests'}`,
    ),
    items.length
      ? h('ul', { class: 'cards requests', 'aria-label': 'Deletion requests' }, items)
      : h('p', { class: 'empty' }, 'Nothing waiting.'),
  );
}
