/**
 * `/pool/<id>`: a pool read like a comic, its posts in order, one picture a row (docs/decisions.md §19).
 * Holders of the edit bit rename, describe and reorder it: each post has "Move up", "Move down" and
 * "Remove" buttons (no dragging, so it works with a thumb or a keyboard), then "Save order"; holders of
 * 0x2000 delete it. The pool's history (who changed what, when) closes the page.
 */
import { api, ApiError, can, errorText, ok, PERMISSION, type Schemas, type Self } from '../api.ts';
import { field, formatDate, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentUser } from '../session.ts';

type Pool = Schemas['PoolDetail'];
type Post = Schemas['Post'];

async function postsOf(pool: Pool): Promise<Map<string, Post>> {
  // One request per post, a few at a time: at most 1,000 posts, mostly far fewer.
  const out = new Map<string, Post>();
  const ids = [...pool.postIds];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let id = ids.shift(); id !== undefined; id = ids.shift()) {
        const post = await ok(api.GET('/api/post/{id}', { params: { path: { id } } })).catch(() => undefined);
        if (post) out.set(id, post);
      }
    }),
  );
  return out;
}

function reading(pool: Pool, posts: Map<string, Post>): HTMLElement {
  if (pool.postIds.length === 0) return h('p', { class: 'empty' }, 'This pool has no posts yet.');
  return h(
    'ol',
    { class: 'pool-pages', 'aria-label': `${pool.name}, in order` },
    pool.postIds.map((id, i) => {
      const post = posts.get(id);
      return h(
        'li',
        {},
        h(
          'a',
          { href: `/post/${id}` },
          h('img', {
            src: post?.thumbnails['1024'] ?? '',
            alt: post?.text.trim() || `Page ${i + 1}`,
            loading: i < 2 ? 'eager' : 'lazy',
            width: 1024,
            height: 768,
          }),
        ),
      );
    }),
  );
}

/** The order editor: a list with move buttons, saved with one PATCH (postIds replaces the order). */
function orderEditor(pool: Pool, posts: Map<string, Post>, saved: () => void): HTMLElement {
  const order = [...pool.postIds];
  const msg = messageBox();
  const list = h('ol', { class: 'pool-order', 'aria-label': 'Order' });
  const draw = (focus?: string) => {
    list.replaceChildren(
      ...order.map((id, i) => {
        const post = posts.get(id);
        const label = post?.text.trim() || `Post ${id.slice(0, 8)}`;
        const move = (to: number, text: string, name: string) =>
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'data-action': name,
              'aria-label': `${text}: ${label}`,
              disabled: to < 0 || to >= order.length,
              onclick: () => {
                order.splice(i, 1);
                order.splice(to, 0, id);
                draw(`${id}:${name}`);
              },
            },
            text,
          );
        return h(
          'li',
          { 'data-post': id },
          h('span', { class: 'n' }, String(i + 1)),
          h('img', { src: post?.thumbnails['320'] ?? '', alt: '' }),
          h('span', { class: 'grow' }, label),
          move(i - 1, '↑', 'up'),
          move(i + 1, '↓', 'down'),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'data-action': 'remove',
              'aria-label': `Remove from the pool: ${label}`,
              onclick: () => {
                order.splice(i, 1);
                draw();
              },
            },
            '×',
          ),
        );
      }),
    );
    if (focus) {
      const [id, name] = focus.split(':');
      list
        .querySelector<HTMLButtonElement>(`li[data-post="${id}"] button[data-action="${name}"]:not([disabled])`)
        ?.focus();
    }
  };
  draw();
  const save = h('button', { type: 'button' }, 'Save order');
  save.addEventListener('click', async () => {
    msg.info('Saving…');
    try {
      await ok(api.PATCH('/api/pool/{id}', { params: { path: { id: String(pool.id) } }, body: { postIds: order } }));
      saved();
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return h(
    'section',
    { class: 'pool-edit', 'aria-labelledby': 'order-h' },
    h('h2', { id: 'order-h' }, 'Order'),
    list,
    save,
    msg.el,
  );
}

function detailsEditor(pool: Pool, saved: () => void): HTMLElement {
  const msg = messageBox();
  const name = h('input', { id: 'pool-name', name: 'name', value: pool.name, maxlength: 100, required: true });
  const description = h('textarea', { id: 'pool-description', name: 'description', rows: 3, maxlength: 10000 });
  description.value = pool.description;
  const form = h(
    'form',
    { class: 'stack', 'aria-labelledby': 'pool-edit-h' },
    h('h2', { id: 'pool-edit-h' }, 'Name and description'),
    ...field(name, 'Name'),
    ...field(description, 'Description'),
    h('button', { type: 'submit' }, 'Save'),
    msg.el,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await ok(
        api.PATCH('/api/pool/{id}', {
          params: { path: { id: String(pool.id) } },
          body: { name: name.value, description: description.value },
        }),
      );
      saved();
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return form;
}

function deleteButton(pool: Pool): HTMLElement {
  const msg = messageBox();
  const button = h('button', { type: 'button', class: 'danger' }, 'Delete this pool');
  button.addEventListener('click', async () => {
    if (!confirm(`Delete the pool "${pool.name}"? Its posts stay.`)) return;
    try {
      await ok(api.DELETE('/api/pool/{id}', { params: { path: { id: String(pool.id) } } }));
      location.assign('/pools');
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return h('section', { class: 'danger-zone' }, button, msg.el);
}

/** The latest changes: who, when, what. */
async function historySection(pool: Pool): Promise<HTMLElement> {
  const changes = await ok(
    api.GET('/api/pool/{id}/history', { params: { path: { id: String(pool.id) }, query: { limit: 20 } } }),
  );
  return h(
    'section',
    { class: 'pool-history', 'aria-labelledby': 'pool-history-h' },
    h('h2', { id: 'pool-history-h' }, 'History'),
    h(
      'ul',
      {},
      changes.data.map((c) =>
        h(
          'li',
          {},
          h('time', { datetime: c.createdAt }, formatDate(c.createdAt)),
          ` · ${c.action} · ${c.user?.name ?? 'someone'} · `,
          Object.keys(c.changes).join(', ') || 'nothing',
        ),
      ),
    ),
  );
}

export async function poolPage(id: string, note?: string): Promise<void> {
  let pool: Pool;
  try {
    pool = await ok(api.GET('/api/pool/{id}', { params: { path: { id } } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      replace(main(), pageHeading('No such pool'), h('p', {}, h('a', { href: '/pools' }, 'See every pool.')));
      return;
    }
    throw err;
  }
  const self: Self | undefined = await currentUser().catch(() => undefined);
  const posts = await postsOf(pool);
  const redraw = (said: string) => () => void poolPage(id, said);
  const status = messageBox();
  replace(
    main(),
    pageHeading(pool.name),
    pool.description ? h('p', { class: 'pool-description' }, pool.description) : null,
    h(
      'p',
      { class: 'count' },
      `${pool.postCount} ${pool.postCount === 1 ? 'post' : 'posts'} · `,
      h('a', { href: '/pools' }, 'all pools'),
    ),
    status.el,
    reading(pool, posts),
    can(self, PERMISSION.edit)
      ? [orderEditor(pool, posts, redraw('Order saved.')), detailsEditor(pool, redraw('Saved.'))]
      : null,
    can(self, PERMISSION.delete) ? deleteButton(pool) : null,
    await historySection(pool),
  );
  if (note) status.info(note);
}
