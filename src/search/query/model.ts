import type { MediaKind, Rating } from '../../kernel/post-record.ts';

/**
 * The one query model (docs/decisions.md §20). `/image/search` conditions, `/api/post/search`
 * selectors, the gallery's search box and the Danbooru spelling all become a `Query`; compile.ts alone
 * turns it into Elasticsearch.
 *
 * Names are resolved before compiling (resolve.ts): aliases to their targets, prefixes to the tags
 * they stand for, user names to ids, md5 values to post numbers. A node is a pure value.
 */
/** `score` (docs/decisions.md §18): a document indexed before the field existed counts as 0. */
export type NumericField =
  | 'seq'
  | 'width'
  | 'height'
  | 'favorites'
  | 'score'
  | 'created_at'
  | 'updated_at'
  /** docs/decisions.md §21: seconds; a still image has none and never matches a duration */
  | 'duration';

/** A half-open interval [gte, lt); a missing bound is open. Dates are epoch milliseconds. */
export interface Bounds {
  gte?: number;
  lt?: number;
}

export type Query =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'and'; of: Query[] }
  | { kind: 'or'; of: Query[] }
  | { kind: 'not'; of: Query }
  /** a tag of exactly this name */
  | { kind: 'tag'; name: string }
  /** the most used tags whose name starts with `prefix` (Danbooru's `tag*`); resolve.ts makes it an `or` of tags */
  | { kind: 'tagPrefix'; prefix: string }
  /** case-insensitive substring of the text */
  | { kind: 'textContains'; value: string }
  /** full-text match, typo tolerant and scored (docs/decisions.md §11); only at the top level */
  | { kind: 'textMatch'; value: string }
  /** case-insensitive substring of the post's UUID */
  | { kind: 'idContains'; value: string }
  | { kind: 'rating'; values: Rating[] }
  | { kind: 'range'; field: NumericField; bounds: Bounds }
  /** the uploader: a name (case-insensitive), or that name or an account id */
  | { kind: 'uploader'; name: string; userId?: number }
  /** favorited by an account: `userId` is filled by resolve.ts (undefined: nobody of that name) */
  | { kind: 'favoritedBy'; name: string; userId?: number }
  /** commented on by an account (docs/decisions.md §18); `userId` as for favoritedBy */
  | { kind: 'commentedBy'; name: string; userId?: number }
  /** posts whose stored file has this MD5 (hex); resolve.ts makes it a `seqs` */
  | { kind: 'md5'; value: string }
  | { kind: 'seqs'; seqs: number[] }
  /** docs/decisions.md §19: in a pool; a child of the post numbered `seq` ('none': has no parent) */
  | { kind: 'pool'; poolId: number }
  | { kind: 'parent'; seq: number | 'none' }
  /** case-insensitive substring of the source */
  | { kind: 'sourceContains'; value: string }
  // docs/decisions.md §22: imported from this site (gallery-dl's category or the host), case-insensitively
  | { kind: 'originSite'; value: string }
  | { kind: 'untagged' }
  | { kind: 'disowned' }
  /** docs/decisions.md §21: what the file is, its stored extension, whether it has sound */
  | { kind: 'mediaKind'; values: MediaKind[] }
  | { kind: 'fileExt'; values: string[] }
  | { kind: 'hasAudio'; value: boolean }
  /** docs/decisions.md §23: has at least one note */
  | { kind: 'hasNotes' };

/** The orders a query can name (Danbooru's `order:`); the endpoints have their own order fields besides. */
export type QueryOrder =
  | 'id'
  | 'id_desc'
  | 'score'
  | 'score_asc'
  | 'favcount'
  | 'comment_count'
  | 'change'
  | 'random'
  /** docs/decisions.md §23: by the newest note's time, posts without notes last (note) or first (note_asc) */
  | 'note'
  | 'note_asc';

export const all: Query = { kind: 'all' };
export const and = (of: Query[]): Query => (of.length === 1 ? of[0] : { kind: 'and', of });
export const or = (of: Query[]): Query => (of.length === 1 ? of[0] : { kind: 'or', of });
export const not = (of: Query): Query => ({ kind: 'not', of });

/** Every node of a query, depth first (to collect what needs resolving before compiling). */
export function* nodes(q: Query): Generator<Query> {
  yield q;
  if (q.kind === 'and' || q.kind === 'or') for (const c of q.of) yield* nodes(c);
  else if (q.kind === 'not') yield* nodes(q.of);
}

/** Rebuilds a query bottom-up with `f` applied to every leaf. */
export function mapLeaves(q: Query, f: (leaf: Query) => Query): Query {
  if (q.kind === 'and' || q.kind === 'or') return { kind: q.kind, of: q.of.map((c) => mapLeaves(c, f)) };
  if (q.kind === 'not') return { kind: 'not', of: mapLeaves(q.of, f) };
  return f(q);
}
