import { AppError } from '../../errors.ts';
import { issueMessage } from '../../http/errors.ts';
import { parseDanbooru } from '../query/danbooru.ts';
import { parseGallery, type GallerySort } from '../query/gallery.ts';
import type { Query } from '../query/model.ts';

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
