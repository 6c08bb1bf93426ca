/**
 * A grid thumbnail's tags coloured by category (docs/decisions.md §19, issue 38's "grid hover"). The list
 * sits over the bottom of the picture while the cell is hovered or its link has keyboard focus, and
 * under the picture on screens where nothing hovers (phones), so it never depends on hover alone. The
 * link is described by the list (aria-describedby), and each tag says its category in words to screen
 * readers; the page's legend names the colours. Tag names are user text: set as text only.
 */
import { api, ok } from './api.ts';
import { h } from './dom.ts';
import { categoryClass, type TagCategory } from './tag-colors.ts';

export interface GridTag {
  name: string;
  /** absent while it is being read (a search result names its tags without their categories) */
  category?: TagCategory;
}

/** At most this many tags a cell (the post page has them all); the rest are counted. */
const SHOWN = 8;
let made = 0;

// Spans, not a list: grids are counted and styled by `.grid li`, and a description is read as flat text anyway.
function items(tags: readonly GridTag[]): HTMLElement {
  const rest = tags.length - SHOWN;
  return h(
    'span',
    { class: 'peek-tags' },
    tags
      .slice(0, SHOWN)
      .map((t, i) =>
        h(
          'span',
          {},
          h(
            'span',
            t.category
              ? { class: categoryClass(t.category), 'data-category': t.category }
              : { class: 'pending', 'data-category': '' },
            t.name,
          ),
          h('span', { class: 'sr-only' }, `${t.category ? ` (${t.category})` : ''}${i < tags.length - 1 ? ',' : ''} `),
        ),
      ),
    rest > 0 ? h('span', { class: 'more' }, `+${rest} more`) : null,
  );
}

/**
 * The list for one cell, with an id for the link's aria-describedby. `later`, when given, brings the
 * tags with their categories; the list is redrawn when it arrives (and stays uncoloured if it fails).
 */
export function tagPeek(tags: readonly GridTag[], later?: Promise<readonly GridTag[]>): HTMLElement {
  const el = h('div', { class: 'tag-peek', id: `tag-peek-${++made}` }, h('span', { class: 'sr-only' }, 'Tags: '));
  let list = items(tags);
  el.append(list);
  later?.then(
    (full) => {
      const next = items(full);
      list.replaceWith(next);
      list = next;
    },
    () => undefined,
  );
  return el;
}

/**
 * Reads posts' tags with their categories, six at a time, each post once per page: for grids whose
 * source (`/image/search`) names tags only. The post page's order (artist first) comes with them.
 */
export function postTagReader(): (postId: string) => Promise<readonly GridTag[]> {
  const cache = new Map<string, Promise<readonly GridTag[]>>();
  const waiting: (() => void)[] = [];
  let running = 0;
  // A finished read hands its slot straight to the next waiting one, so never more than six run.
  const slot = () =>
    running < 6 ? (running++, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve));
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return (id) => {
    let got = cache.get(id);
    if (!got) {
      got = slot().then(() =>
        ok(api.GET('/api/post/{id}', { params: { path: { id } } }))
          .then((post) => post.tags.map((t) => ({ name: t.name, category: t.category })))
          .finally(release),
      );
      cache.set(id, got);
    }
    return got;
  };
}
