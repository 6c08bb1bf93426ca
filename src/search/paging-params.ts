import { z } from 'zod';
import { documentedQuery } from '../http/endpoint.ts';
import { parse, queryInt } from '../http/validate.ts';

/** A limit above this is lowered to it, not refused (docs/decisions.md §4). */
export const MAX_LIMIT = 1000;

export const listQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, MAX_LIMIT)),
});

/** `offset`/`limit` as on GET /api/post/: negative or non-integer values are 400. */
export function parseListPaging(query: unknown): { offset: number; limit: number } {
  return parse(listQuery, query);
}

/** How the document words the paging fields every list shares. */
export const PAGING_WORDS = {
  offset: 'results to skip',
  limit: `page size; above ${MAX_LIMIT} lowered to ${MAX_LIMIT}`,
} as const;

/** The list paging as the document shows it: integers with the route's ranges and defaults. */
export const documentedListQuery = () => documentedQuery(listQuery, PAGING_WORDS);
