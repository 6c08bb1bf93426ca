import type { SortClause } from '../engine.ts';
import { and, not, or, type Query } from '../query/model.ts';
import type { Condition, ImageSearchRequest } from './schema.ts';

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
    case 'textMatch':
      return { kind: 'textMatch', value: c.value };
    case 'query':
      return c.parsed.query;
  }
}

/** The conditions as one query: all must hold; every tagAny condition joins one OR group (§15). */
export function conditionsQuery(conditions: Condition[]): Query {
  const required = conditions.filter((c) => c.type !== 'tagAny').map(conditionQuery);
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
        : r.orderBy === 'favorites'
          ? // Documents indexed before the field existed count as none.
            [{ favorites: { order: dir, missing: dir === 'desc' ? '_last' : '_first' } } as SortClause]
          : [];
  // The post number is unique, so it ends every tie: an `id` key after it would never decide an order,
  // yet Elasticsearch would load and compare it for every competitive hit (keyword ordinals; its cost
  // at 1M posts: bench/notes/core-run.md, "/image/search").
  return [...primary, { seq: { order: dir } }];
}
