import { allOf, idContains, not, term, textContains, type Clause, type NeedleMatches } from '../clauses.ts';
import type { SortClause } from '../engine.ts';
import { dateClause } from './dates.ts';
import type { OrderItem, Selector } from './schema.ts';

/** One selector as an Elasticsearch clause (docs/decisions.md §6). */
export function selectorClause(s: Selector, resolved?: NeedleMatches): Clause {
  switch (s.type) {
    case 'text':
      return s.op === 'contains' ? textContains(s.value, resolved) : not(textContains(s.value, resolved));
    case 'id':
      return idContains(s.value);
    case 'tag':
      return s.op === 'include' ? term('tags', s.value) : not(term('tags', s.value));
    case 'rating':
      return term('rating', s.value);
    case 'createdAt':
      return dateClause('created_at', s.op, s.value);
    case 'updatedAt':
      return dateClause('updated_at', s.op, s.value);
    case 'system':
      return s.op === 'untagged' ? term('tag_count', 0) : not({ exists: { field: 'uploader_id' } });
  }
}

/** `resolved`: the exact matches of long text needles (long-needles.ts). */
export const buildQuery = (filter: Selector[], resolved?: NeedleMatches): Clause =>
  allOf(filter.map((s) => selectorClause(s, resolved)));

const FIELD: Record<OrderItem['key'], string> = { createdAt: 'created_at', uploaderId: 'uploader_id', id: 'id' };

/**
 * The sort: the requested keys, then `id` ascending as the final tie-breaker (docs/decisions.md §6), which
 * also makes every sort tuple unique for search_after. Posts without an owner sort last in either
 * direction, hence the explicit `missing: _last`.
 */
export function buildSort(order: OrderItem[]): SortClause[] {
  const sort: SortClause[] = order.map((o) => ({
    [FIELD[o.key]]: o.key === 'uploaderId' ? { order: o.direction, missing: '_last' } : { order: o.direction },
  }));
  sort.push({ id: { order: 'asc' } });
  return sort;
}
