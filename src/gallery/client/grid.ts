/**
 * The thumbnail grid. Thumbnails are at most 320 px on their long side and the post does not say
 * its image's size, so every cell is a fixed square (CSS) and the picture is fitted inside: the
 * grid never jumps while lazy images arrive.
 */
import { h } from './dom.ts';

export interface GridItem {
  /** `/post/<uuid>` */
  href: string;
  thumbnail: string;
  /** non-empty: what the picture is about */
  alt: string;
  caption?: string;
}

/** A non-empty description of a post for `alt` (its text, else its tags). */
export function describePost(p: { text: string; tags: string[] }, fallback: string): string {
  const text = p.text.trim().replace(/\s+/g, ' ');
  if (text) return text.length > 120 ? `${text.slice(0, 117)}…` : text;
  if (p.tags.length) return `Picture tagged ${p.tags.slice(0, 8).join(', ')}`;
  return fallback;
}

export function grid(items: GridItem[], label: string): HTMLElement {
  return h(
    'ul',
    { class: 'grid', 'aria-label': label },
    items.map((item) =>
      h(
        'li',
        {},
        h(
          'a',
          { href: item.href },
          h('img', { src: item.thumbnail, alt: item.alt, loading: 'lazy', decoding: 'async', width: 320, height: 320 }),
          item.caption ? h('span', { class: 'caption' }, item.caption) : null,
        ),
      ),
    ),
  );
}

/** "Newer / Page n of m / Older" links; `hrefFor(page)` builds the address of a page. */
export function pager(
  page: number,
  total: number,
  pageSize: number,
  hrefFor: (page: number) => string,
): HTMLElement | null {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    page > 1 ? h('a', { href: hrefFor(page - 1), rel: 'prev' }, '← Newer') : h('span', {}, ''),
    h('span', { 'aria-current': 'page' }, `Page ${page} of ${pages}`),
    page < pages ? h('a', { href: hrefFor(page + 1), rel: 'next' }, 'Older →') : h('span', {}, ''),
  );
}

/** ?page=n from the address, at least 1. */
export function currentPage(): number {
  const n = Number(new URLSearchParams(location.search).get('page'));
  return Number.isInteger(n) && n > 1 ? n : 1;
}
