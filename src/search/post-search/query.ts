import type { SortClause } from '../engine.ts';
import { and, not, type Query } from '../query/model.ts';
import { dateBounds } from './dates.ts';
import type { OrderItem, Selector } from './schemas.ts';

/** One selector in the query model (docs/decisions.md §6, §20). */
export function selectorQuery(s: Selector): Query {
  switch (s.type) {
    case 'text': {
      const q: Query = { kind: 'textContains', value: s.value };
      return s.op === 'contains' ? q : not(q);
    }
    case 'id':
      return { kind: 'idContains', value: s.value };
    case 'tag':
      return s.op === 'include' ? { kind: 'tag', name: s.value } : not({ kind: 'tag', name: s.value });
    case 'rating':
      return { kind: 'rating', values: [s.value] };
    case 'createdAt':
    case 'updatedAt': {
      const q: Query = {
        kind: 'range',
        field: s.type === 'createdAt' ? 'created_at' : 'updated_at',
        bounds: dateBounds(s.op, s.value),
      };
      return s.op === 'ne' ? not(q) : q;
    }
    case 'system':
      return { kind: s.op === 'untagged' ? 'untagged' : 'disowned' };
    case 'hasNotes':
      return s.value ? { kind: 'hasNotes' } : not({ kind: 'hasNotes' });
  }
}

/** The selectors as one query: all must hold. */
export const selectorsQuery = (filter: Selector[]): Query =>
  filter.length === 0 ? { kind: 'all' } : and(filter.map(selectorQuery));

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
