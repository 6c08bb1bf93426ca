import { term } from '../clauses.ts';
import type { SortClause } from '../engine.ts';
import { and, not, or, type Query } from '../query/model.ts';
import type { Condition, ImageSearchRequest } from './schemas.ts';

/** One condition in the query model (docs/decisions.md §7, §20). */
function conditionQuery(c: Condition): Query {
  switch (c.type) {
    case 'tagInclude':
    case 'tagAny':
      return { kind: 'tag', name: c.value };
    case 'tagExclude':
      return not({ kind: 'tag', name: c.value });
    case 'ratingEq':
      return { kind: 'rating', values: [c.value] };
    case 'textContains':
      return { kind: 'textContains', value: c.value };
    case 'uploadedBy':
      return { kind: 'uploader', name: c.value, ...(c.userId !== undefined ? { userId: c.userId } : {}) };
    case 'favoritedBy':
      return { kind: 'favoritedBy', name: c.value, ...(c.userId !== undefined ? { userId: c.userId } : {}) };
    // docs/decisions.md §18
    case 'commentedBy':
      return { kind: 'commentedBy', name: c.value, ...(c.userId !== undefined ? { userId: c.userId } : {}) };
    case 'scoreGte':
      return { kind: 'range', field: 'score', bounds: { gte: c.bound } };
    case 'scoreLte':
      return { kind: 'range', field: 'score', bounds: { lt: c.bound + 1 } };
    case 'textMatch':
      return { kind: 'textMatch', value: c.value };
    case 'query':
      return c.parsed.query;
    // docs/decisions.md §19
    case 'pool':
      return { kind: 'pool', poolId: c.poolId };
    case 'childOf':
      // A UUID no post has: a number no post has (numbers start at 1), so nothing matches.
      return { kind: 'parent', seq: c.parentSeq ?? 0 };
    case 'sourceContains':
      return { kind: 'sourceContains', value: c.value };
    // docs/decisions.md §22
    case 'originSite':
      return { kind: 'originSite', value: c.value };
    // docs/decisions.md §21
    case 'mediaKind':
      return { kind: 'mediaKind', values: c.kinds };
    case 'durationGte':
      return { kind: 'range', field: 'duration', bounds: { gte: c.bound } };
    case 'durationLte':
      return { kind: 'range', field: 'duration', bounds: { lt: c.bound + 1e-6 } };
    case 'hasAudio':
      return { kind: 'hasAudio', value: c.audio };
    // docs/decisions.md §23
    case 'hasNotes':
      return c.has ? { kind: 'hasNotes' } : not({ kind: 'hasNotes' });
  }
}

/** The tags every match carries: tagInclude values, and the tags a query condition requires at its top. */
export function requiredTags(conditions: readonly Condition[]): string[] {
  return conditions.flatMap((c) => {
    if (c.type === 'tagInclude') return [c.value];
    if (c.type !== 'query') return [];
    const q = c.parsed.query;
    return (q.kind === 'and' ? q.of : [q]).flatMap((n) => (n.kind === 'tag' ? [n.name] : []));
  });
}

/**
 * A count's sort. Documents indexed before the field existed: last (desc) or first (asc) for favorites;
 * a score or comment count of 0 for the counts of mapping 9 (a score may be negative, so 0 is not last).
 */
export const countSort = (field: 'favorites' | 'score' | 'comments', dir: 'asc' | 'desc'): SortClause =>
  ({
    [field]: { order: dir, missing: field !== 'favorites' ? 0 : dir === 'desc' ? '_last' : '_first' },
  }) as SortClause;

/**
 * The conditions as one query: all must hold; every tagAny condition joins one OR group (§15). A query
 * condition's own AND is spread among the others, so its words (the gallery spelling's textMatch) stay
 * at the top level, where they rank by relevance (compile.ts).
 */
export function conditionsQuery(conditions: Condition[]): Query {
  const required = conditions
    .filter((c) => c.type !== 'tagAny')
    .map(conditionQuery)
    .flatMap((q) => (q.kind === 'and' ? q.of : [q]));
  const any = [...new Set(conditions.flatMap((c) => (c.type === 'tagAny' ? [c.value] : [])))];
  if (any.length > 0) required.push(or(any.map((name) => ({ kind: 'tag', name }))));
  return required.length === 0 ? { kind: 'all' } : and(required);
}

/**
 * The requested key, then the post number in the same direction (so ties are deterministic and
 * "newest first" holds among equal dates or scores), then `id`, the unique key the engine reads back.
 */
export function buildImageSort(r: ImageSearchRequest): SortClause[] {
  const dir = r.order;
  const primary: SortClause[] =
    r.orderBy === 'uploadDate'
      ? [{ created_at: { order: dir } }]
      : r.orderBy === 'relevance'
        ? [{ _score: { order: dir } }]
        : r.orderBy === 'favorites' || r.orderBy === 'score' || r.orderBy === 'comments'
          ? [countSort(r.orderBy, dir)]
          : r.orderBy === 'pool'
            ? [poolSort(r, dir)]
            : [];
  // The post number is unique, so it ends every tie: an `id` key after it would never decide an order,
  // yet Elasticsearch would load and compare it for every competitive hit (keyword ordinals; its cost
  // at 1M posts: bench/notes/core-run.md, "/image/search").
  return [...primary, { seq: { order: dir } }];
}

/**
 * docs/decisions.md §19: the pool's order, exact: each post's position in the one pool the request names,
 * read from the nested `pools` entry of that pool (the schema let orderBy pool through only with
 * exactly one pool condition).
 */
function poolSort(r: ImageSearchRequest, order: 'asc' | 'desc'): SortClause {
  const pool = r.conditions.find((c) => c.type === 'pool');
  const poolId = pool?.type === 'pool' ? pool.poolId : 0;
  return { 'pools.position': { order, nested: { path: 'pools', filter: term('pools.id', poolId) } } };
}
