import { AppError } from '../../errors.ts';
import { issueMessage } from '../../http/errors.ts';
import { parseDanbooru } from '../query/danbooru.ts';
import { parseGallery, type GallerySort } from '../query/gallery.ts';
import type { Query } from '../query/model.ts';
import type { Condition, ImageOrderBy } from './schema.ts';

/**
 * The `query` condition of `/image/search` (docs/decisions.md §20): a search written in one of two
 * spellings, both parsed on the server into the one query model. `danbooru` (the default) is the
 * Danbooru spelling, whose `order:` is ignored here; `gallery` is the gallery's search box
 * (docs/decisions.md §12), whose `sort:` orders the results when the request names no `orderBy`.
 */
export const SPELLINGS = ['danbooru', 'gallery'] as const;
export type Spelling = (typeof SPELLINGS)[number];

export interface ParsedQueryCondition {
  query: Query;
  /** the gallery spelling's sort (its default included) */
  sort?: GallerySort;
}

/** A `spelling` as the request gives it: absent is danbooru; undefined for anything unknown. */
export const spellingOf = (v: unknown): Spelling | undefined =>
  v === undefined ? 'danbooru' : (SPELLINGS as readonly unknown[]).includes(v) ? (v as Spelling) : undefined;

export const SPELLING_MESSAGE = `spelling is one of ${SPELLINGS.join(', ')}`;

/** A `query` condition's value parsed, or the 400 message naming the bad term. */
export function parseQueryCondition(value: string, spelling: Spelling): ParsedQueryCondition | string {
  try {
    if (spelling === 'gallery') return parseGallery(value);
    return { query: parseDanbooru(value).query };
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation') return issueMessage(err).replace(/^tags: /, '');
    throw err;
  }
}

const SORT_ORDERS: Record<GallerySort, { orderBy: ImageOrderBy; order: 'asc' | 'desc' }> = {
  new: { orderBy: 'uploadDate', order: 'desc' },
  old: { orderBy: 'uploadDate', order: 'asc' },
  relevance: { orderBy: 'relevance', order: 'desc' },
  score: { orderBy: 'score', order: 'desc' },
  comments: { orderBy: 'comments', order: 'desc' },
};

/**
 * The request's order. `orderBy` absent: the first gallery-spelled query's sort, else uploadDate.
 * `order` absent: that sort's direction, else descending, but a pool reads from its first post
 * (docs/decisions.md §19).
 */
export function settleOrder(
  orderBy: ImageOrderBy | undefined,
  order: 'asc' | 'desc' | undefined,
  conditions: readonly Condition[],
): { orderBy: ImageOrderBy; order: 'asc' | 'desc' } {
  let boxed: (typeof SORT_ORDERS)[GallerySort] | undefined;
  if (orderBy === undefined)
    for (const c of conditions)
      if (c.type === 'query' && c.parsed.sort) {
        boxed = SORT_ORDERS[c.parsed.sort];
        break;
      }
  const by = orderBy ?? boxed?.orderBy ?? 'uploadDate';
  return { orderBy: by, order: order ?? boxed?.order ?? (by === 'pool' ? 'asc' : 'desc') };
}
