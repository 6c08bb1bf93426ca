/**
 * The thumbnail grid. Thumbnails are at most 320 px on their long side and the post does not say
 * its image's size, so every cell is a fixed square (CSS) and the picture is fitted inside: the
 * grid never jumps while lazy images arrive.
 */
import { h } from './dom.ts';
import { type GridTag, tagPeek } from './tag-peek.ts';

export interface GridItem {
  /** `/post/<uuid>` */
  href: string;
  thumbnail: string;
  /** non-empty: what the picture is about */
  alt: string;
  caption?: string;
  /** the post's tags, shown coloured by category over the cell on hover or focus (./tag-peek.ts) */
  tags?: readonly GridTag[];
  /** the same tags with their categories, when `tags` come without them */
  categorised?: Promise<readonly GridTag[]>;
  /** docs/decisions.md §21: an animation or a video, marked on its cell with its duration */
  media?: { kind: string; duration: number | null };
}

/** `m:ss`, as players show a duration. */
export function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** "Video 0:04", "Animation 0:02": what a moving picture is and how long it runs. */
export function mediaMark(media: { kind: string; duration: number | null }): string {
  const kind = media.kind === 'video' ? 'Video' : 'Animation';
  return media.duration === null ? kind : `${kind} ${clock(media.duration)}`;
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
    items.map((item) => {
      const peek = item.tags?.length ? tagPeek(item.tags, item.categorised) : null;
      return h(
        'li',
        { class: peek ? 'peekable' : undefined },
        h(
          'a',
          { href: item.href, 'aria-describedby': peek?.id },
          h('img', { src: item.thumbnail, alt: item.alt, loading: 'lazy', decoding: 'async', width: 320, height: 320 }),
          item.media && item.media.kind !== 'image'
            ? h('span', { class: `media-mark ${item.media.kind}` }, mediaMark(item.media))
            : null,
          item.caption ? h('span', { class: 'caption' }, item.caption) : null,
        ),
        peek,
      );
    }),
  );
}

/**
 * A total as the page shows it: "10,000+" when the search counted no further (docs/decisions.md §24), so the
 * number is a lower bound.
 */
export const totalText = (total: number, estimate?: boolean): string =>
  estimate ? `${total.toLocaleString('en')}+` : String(total);

/**
 * "Newer / Page n of m / Older" links; `hrefFor(page)` builds the address of a page. With an estimated total
 * (docs/decisions.md §24) the last page is not known: "Page n of m+", and older pages are always offered.
 */
export function pager(
  page: number,
  total: number,
  pageSize: number,
  hrefFor: (page: number) => string,
  estimate?: boolean,
): HTMLElement | null {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1 && !estimate) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    page > 1 ? h('a', { href: hrefFor(page - 1), rel: 'prev' }, '← Newer') : h('span', {}, ''),
    h('span', { 'aria-current': 'page' }, `Page ${page} of ${totalText(pages, estimate)}`),
    page < pages || estimate ? h('a', { href: hrefFor(page + 1), rel: 'next' }, 'Older →') : h('span', {}, ''),
  );
}

/** ?page=n from the address, at least 1. */
export function currentPage(): number {
  const n = Number(new URLSearchParams(location.search).get('page'));
  return Number.isInteger(n) && n > 1 ? n : 1;
}
