import { mapLeaves, or, type Query } from './model.ts';

/** How many tags a Danbooru prefix term (`tag*`) stands for: the most used ones (docs/decisions.md §20). */
export const PREFIX_TAGS = 100;

/** What the names in a query are resolved against: SQLite, the source of truth. */
export interface QueryResolver {
  /** an alias' target, else the name itself (docs/decisions.md §15) */
  canonical(name: string): string;
  /** the `limit` most used tags whose name starts with `prefix`, case-insensitively */
  tagsByPrefix(prefix: string, limit: number): string[];
  /** an account's id by name (case-insensitive) */
  userIdOf(name: string): number | undefined;
  /** the numbers of the posts whose stored file has this MD5 */
  seqsByMd5(md5: string): number[];
}

/**
 * The query with its names resolved: tag aliases to their targets, prefixes to the tags they stand
 * for, favoriters to ids, MD5 values to post numbers. What remains compiles without SQLite.
 */
export function resolveQuery(q: Query, r: QueryResolver): Query {
  return mapLeaves(q, (leaf) => {
    switch (leaf.kind) {
      case 'tag':
        return { kind: 'tag', name: r.canonical(leaf.name) };
      case 'tagPrefix': {
        const names = [...new Set(r.tagsByPrefix(leaf.prefix, PREFIX_TAGS).map((n) => r.canonical(n)))];
        return names.length === 0 ? { kind: 'none' } : or(names.map((name) => ({ kind: 'tag', name })));
      }
      case 'favoritedBy':
      case 'commentedBy':
        return { ...leaf, userId: leaf.userId ?? r.userIdOf(leaf.name) };
      case 'md5':
        return { kind: 'seqs', seqs: r.seqsByMd5(leaf.value.toLowerCase()) };
      default:
        return leaf;
    }
  });
}
