import { allOf, escapeWildcard, not, term, textContains, type Clause, type NeedleMatches } from '../clauses.ts';
import type { SortClause } from '../engine.ts';
import type { Condition, ImageSearchRequest } from './schema.ts';
import { exactWeight, textMatchClause } from './text-match.ts';

/** A filter-context clause for every condition but textMatch, which scores (docs/decisions.md §7). */
function conditionClause(c: Condition, resolved?: NeedleMatches, matchWeight = 1): Clause {
  switch (c.type) {
    case 'tagInclude':
      return term('tags', c.value);
    case 'tagExclude':
      return not(term('tags', c.value));
    case 'tagAny':
      // Never reached: buildImageQuery groups every tagAny condition into one clause.
      return term('tags', c.value);
    case 'ratingEq':
      return term('rating', c.value);
    case 'textContains':
      return textContains(c.value, resolved);
    case 'uploadedBy': {
      // Usernames are case-insensitive (SQLite's NOCASE), hence the lower-cased copy in the index.
      const byName = term('uploader_name_lc', c.value.toLowerCase());
      return c.userId === undefined
        ? byName
        : { bool: { should: [byName, term('uploader_id', c.userId)], minimum_should_match: 1 } };
    }
    case 'favoritedBy':
      // No such user: an id no account has (ids start at 1), so nothing matches.
      return term('favorited_by', c.userId ?? 0);
    case 'commentedBy':
      // As favoritedBy: an unknown user is an id no account has, so nothing matches.
      return term('commented_by', c.userId ?? 0);
    case 'scoreGte':
    case 'scoreLte':
      return scoreBound(c.type === 'scoreGte' ? 'gte' : 'lte', c.bound);
    case 'textMatch':
      return textMatchClause(c.value, matchWeight);
    // docs/decisions.md §19
    case 'pool':
      return term('pool_ids', c.poolId);
    case 'childOf':
      // A UUID no post has: a number no post has (numbers start at 1), so nothing matches.
      return term('parent', c.parentSeq ?? 0);
    case 'sourceContains':
      // Both sides lower-cased by JavaScript, as textContains does; `source_lc` is a keyword.
      return { wildcard: { source_lc: { value: `*${escapeWildcard(c.value.toLowerCase())}*` } } };
  }
}

/**
 * docs/decisions.md §18: a bound on the score. A document indexed before the field existed (mapping 9
 * adds it to a live index) has a score of 0, so a bound that 0 meets matches it too.
 */
function scoreBound(op: 'gte' | 'lte', bound: number): Clause {
  const range: Clause = { range: { score: { [op]: bound } } };
  const zeroMeets = op === 'gte' ? bound <= 0 : bound >= 0;
  return zeroMeets
    ? { bool: { should: [range, not({ exists: { field: 'score' } })], minimum_should_match: 1 } }
    : range;
}

/**
 * A count's sort. Documents indexed before the field existed: last (desc) or first (asc) for favorites;
 * a score or comment count of 0 for the counts of mapping 9 (a score may be negative, so 0 is not last).
 */
const countSort = (field: 'favorites' | 'score' | 'comments', dir: 'asc' | 'desc'): SortClause =>
  ({
    [field]: { order: dir, missing: field !== 'favorites' ? 0 : dir === 'desc' ? '_last' : '_first' },
  }) as SortClause;

/** `resolved`: the exact matches of long textContains needles (long-needles.ts). */
export function buildImageQuery(conditions: Condition[], resolved?: NeedleMatches): Clause {
  const matches = conditions.filter((c) => c.type === 'textMatch');
  // Analysed words never outnumber code points: a bound on the words of all textMatch values together.
  const weight = exactWeight(matches.reduce((n, c) => n + Array.from(c.value).length, 0));
  const scored = matches.map((c) => conditionClause(c, undefined, weight));
  const filters = conditions
    .filter((c) => c.type !== 'textMatch' && c.type !== 'tagAny')
    .map((c) => conditionClause(c, resolved));
  // docs/decisions.md §15: all tagAny conditions of a request form one OR group.
  const any = [...new Set(conditions.flatMap((c) => (c.type === 'tagAny' ? [c.value] : [])))];
  if (any.length > 0)
    filters.push(
      any.length === 1
        ? term('tags', any[0])
        : { bool: { should: any.map((v) => term('tags', v)), minimum_should_match: 1 } },
    );
  if (scored.length === 0) return allOf(filters);
  return { bool: { must: scored, filter: filters } };
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
