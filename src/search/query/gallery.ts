import { invalid } from '../../errors.ts';
import { MAX_MATCH_LENGTH } from '../image-search/text-match.ts';
import { MAX_TERMS } from './danbooru.ts';
import { and, not, or, type Query } from './model.ts';
import { ratingNamed } from './ratings.ts';

/**
 * The gallery's spelling of a query (docs/decisions.md §12, §20): the search box's segments, combined
 * with AND.
 *   words        -> one textMatch (full text, typo tolerant, ranked by relevance)
 *   "a phrase"   -> textContains (a case-insensitive substring); an unclosed quote runs to the end
 *   +tag / -tag  -> the tag / not the tag
 *   ~tag         -> every ~tag of the box forms one OR group (docs/decisions.md §15)
 *   rating:none|moderate|violent, by:name (an uploader's name, or an account id)
 *   sort:new|old|relevance|score|comments (docs/decisions.md §18)
 * A lone `+`, `-` or `~` is nothing. Any other `name:value` is a word (`10:30` is text). An unknown
 * sort or rating, or `rating:`/`by:`/`sort:` without a value, is a 400 naming the segment: the box is
 * typed by people, who read that message in the gallery.
 */
export const GALLERY_SORTS = ['new', 'old', 'relevance', 'score', 'comments'] as const;
export type GallerySort = (typeof GALLERY_SORTS)[number];

export interface ParsedGallery {
  query: Query;
  /** the box's `sort:`; without one, `relevance` when it has words, else `new` */
  sort: GallerySort;
}

const bad = (segment: string, why: string) => invalid(['tags'], `${why} in "${segment}"`);

/** A `name:value` segment the box knows, or undefined for a word. */
function metaSegment(segment: string): { name: 'rating' | 'by' | 'sort'; value: string } | undefined {
  const colon = segment.indexOf(':');
  if (colon <= 0) return undefined;
  const name = segment.slice(0, colon).toLowerCase();
  if (name !== 'rating' && name !== 'by' && name !== 'sort') return undefined;
  const value = segment.slice(colon + 1);
  if (value === '') throw bad(segment, `"${name}:" needs a value`);
  return { name, value };
}

export function parseGallery(input: string): ParsedGallery {
  const required: Query[] = [];
  const anyOf: Query[] = [];
  const words: string[] = [];
  let sort: GallerySort | undefined;
  for (const m of input.matchAll(/"([^"]*)"?|(\S+)/g)) {
    if (m[1] !== undefined) {
      if (m[1].trim()) required.push({ kind: 'textContains', value: m[1].trim() });
      continue;
    }
    const segment = m[2];
    const sign = segment.length > 1 ? segment[0] : '';
    if (sign === '+' || sign === '-' || sign === '~') {
      const tag: Query = { kind: 'tag', name: segment.slice(1) };
      if (sign === '~') anyOf.push(tag);
      else required.push(sign === '+' ? tag : not(tag));
      continue;
    }
    if (segment === '+' || segment === '-' || segment === '~') continue;
    const meta = metaSegment(segment);
    if (!meta) words.push(segment);
    else if (meta.name === 'rating') {
      const rating = ratingNamed(meta.value.toLowerCase());
      if (!rating) throw bad(segment, `unknown rating "${meta.value}" (none, moderate or violent)`);
      required.push({ kind: 'rating', values: [rating] });
    } else if (meta.name === 'by') {
      // A number also names an account id, as the uploadedBy condition reads it (docs/decisions.md §7).
      const id = /^[1-9]\d{0,15}$/.test(meta.value) ? Number(meta.value) : undefined;
      required.push({ kind: 'uploader', name: meta.value, ...(Number.isSafeInteger(id) ? { userId: id } : {}) });
    } else {
      const asked = meta.value.toLowerCase() as GallerySort;
      if (!GALLERY_SORTS.includes(asked))
        throw bad(segment, `unknown sort "${meta.value}" (${GALLERY_SORTS.join(', ')})`);
      sort = asked;
    }
  }
  // The segments were conditions once; their bound stays (the words count as one).
  if (required.length + anyOf.length + (words.length > 0 ? 1 : 0) > MAX_TERMS)
    throw invalid(['tags'], `a search holds at most ${MAX_TERMS} segments besides its words`);
  if (words.length > 0) {
    const value = words.join(' ');
    if (value.length > MAX_MATCH_LENGTH)
      throw invalid(['tags'], `the words of a search are at most ${MAX_MATCH_LENGTH} characters`);
    required.push({ kind: 'textMatch', value });
  }
  if (anyOf.length > 0) required.push(or(anyOf));
  return {
    query: required.length === 0 ? { kind: 'all' } : and(required),
    sort: sort ?? (words.length > 0 ? 'relevance' : 'new'),
  };
}
