/**
 * `/pools`: every pool by name, filtered by the start of a name; holders of the edit bit create one
 * here, or from a search's results (makePoolButton, on the search page). docs/decisions.md §19.
 */
import { onSubmit } from '../submit.ts';
import { api, can, ok, PERMISSION, type Self } from '../api.ts';
import { field, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentPage, pager } from '../grid.ts';
import { currentUser } from '../session.ts';

const PAGE_SIZE = 50;

/** A form asking a new pool's name; `postIds()` gives its posts in order when it is sent. */
export function newPoolForm(id: string, button: string, postIds: () => string[]): HTMLElement {
  const msg = messageBox();
  const name = h('input', { id, name: 'name', required: true, maxlength: 100, autocomplete: 'off' });
  const form = h(
    'form',
    { class: 'inline-form new-pool' },
    ...field(name, 'Pool name'),
    h('button', { type: 'submit' }, button),
    msg.el,
  );
  onSubmit(form, msg, 'Creating…', async () => {
    const pool = await ok(api.POST('/api/pool', { body: { name: name.value, postIds: postIds() } }));
    location.assign(`/pool/${pool.id}`);
  });
  return form;
}

/** The search page's "make a pool of these results" (the page's posts, in the order shown). */
export function makePoolButton(self: Self | undefined, postIds: string[]): HTMLElement | null {
  if (!can(self, PERMISSION.edit) || postIds.length === 0) return null;
  return h(
    'details',
    { class: 'make-pool' },
    h('summary', {}, 'Make a pool of these results'),
    newPoolForm('pool-from-search', 'Create pool', () => postIds),
  );
}

export async function poolsPage(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const prefix = params.get('prefix') ?? '';
  const page = currentPage();
  const self: Self | undefined = await currentUser().catch(() => undefined);
  const list = await ok(
    api.GET('/api/pool', { params: { query: { prefix, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } }),
  );
  const filter = h('input', { id: 'pool-prefix', name: 'prefix', value: prefix, autocomplete: 'off' });
  replace(
    main(),
    pageHeading('Pools'),
    h('form', { class: 'inline-form', method: 'get' }, ...field(filter, 'Name starts with'), h('button', {}, 'Filter')),
    can(self, PERMISSION.edit) ? newPoolForm('new-pool-name', 'New pool', () => []) : null,
    h('p', { class: 'count', role: 'status' }, `${list.count} ${list.count === 1 ? 'pool' : 'pools'}`),
    list.data.length
      ? h(
          'ul',
          { class: 'pool-list' },
          list.data.map((p) =>
            h(
              'li',
              {},
              h('a', { href: `/pool/${p.id}` }, p.name),
              ' ',
              h('span', { class: 'muted' }, `${p.postCount} ${p.postCount === 1 ? 'post' : 'posts'}`),
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'No pools yet.'),
    pager(page, list.count, PAGE_SIZE, (n) => `/pools?prefix=${encodeURIComponent(prefix)}&page=${n}`),
  );
}
