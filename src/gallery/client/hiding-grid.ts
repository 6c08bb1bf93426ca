/**
 * A grid that leaves out blacklisted posts (docs/decisions.md §18), says how many it left out, and has
 * a switch (a toggle button with aria-pressed) to show them, marked, in their places.
 */
import { isBlacklisted, readBlacklist, rulesOf } from './blacklist.ts';
import { h, replace, type Child } from './dom.ts';
import type { Post } from './api.ts';
import { describePost, grid, type GridItem } from './grid.ts';

export interface HidingGridOptions<T> {
  tagsOf: (item: T) => string[];
  toItem: (item: T) => GridItem;
  label: string;
  /** shown when there is nothing at all */
  empty: Child;
}

/** The posts of a page of posts (the newest, a person's favorites): their tag names and their cells. */
export const postCells: Pick<HidingGridOptions<Post>, 'tagsOf' | 'toItem'> = {
  tagsOf: (p) => p.tags.map((t) => t.name),
  toItem: (p) => ({
    href: `/post/${p.id}`,
    thumbnail: p.thumbnails['320'],
    alt: describePost({ text: p.text, tags: p.tags.map((t) => t.name) }, `Post from ${p.createdAt.slice(0, 10)}`),
    tags: p.tags,
    media: p.media,
  }),
};

export async function hidingGrid<T>(items: T[], opts: HidingGridOptions<T>): Promise<HTMLElement> {
  const rules = rulesOf(await readBlacklist().catch(() => []));
  const hidden = new Set(items.filter((i) => isBlacklisted(opts.tagsOf(i), rules)));
  const box = h('div', { class: 'hiding-grid' });
  let showing = false;
  const toggle = h('button', { type: 'button', class: 'secondary', id: 'show-blacklisted', 'aria-pressed': 'false' });
  const draw = () => {
    toggle.textContent = showing ? 'Hide them again' : 'Show them';
    toggle.setAttribute('aria-pressed', String(showing));
    const shown = items
      .filter((i) => showing || !hidden.has(i))
      .map((i) => {
        const item = opts.toItem(i);
        return hidden.has(i) ? { ...item, caption: 'Blacklisted' } : item;
      });
    const note =
      hidden.size > 0
        ? h(
            'p',
            { class: 'blacklist-note', role: 'status' },
            `${hidden.size} ${hidden.size === 1 ? 'post' : 'posts'} on this page hidden by your `,
            h('a', { href: '/account#blacklist-h' }, 'blacklist'),
            ' ',
            toggle,
          )
        : null;
    replace(box, note, shown.length ? grid(shown, opts.label) : hidden.size ? null : opts.empty);
  };
  toggle.addEventListener('click', () => {
    showing = !showing;
    draw();
    toggle.focus();
  });
  draw();
  return box;
}
