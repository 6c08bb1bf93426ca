/**
 * Builders for the operations still described here, by area, under ./operations/ (the generic pieces
 * are src/http/endpoint.ts, which a feature's own endpoint declarations use).
 */
import { ListQuery } from '../posts/schemas.ts';
import { listQuery as SearchPaging } from '../search/paging-params.ts';
import { always, documentedQuery, type Operation, type Reply } from '../http/endpoint.ts';
export {
  always,
  binary,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  limited,
  postId,
  postNotFound,
  retryAfter,
  searchDown,
  type Method,
  type Operation,
  type Reply,
} from '../http/endpoint.ts';

export { signedIn } from '../accounts/account-shapes.ts';

/** The operations endpoints are plain GETs: one line each rather than one block each. */
export const operationsGet = (
  path: string,
  operationId: string,
  summary: string,
  responses: Record<number, Reply>,
): Operation => ({
  method: 'get',
  path,
  operationId,
  tag: 'operations',
  summary,
  responses: { ...always, ...responses },
});

/** Paging as GET /api/post/ takes it (docs/decisions.md §4); the schema is the route's own. */
export const paging = (schema: typeof ListQuery | typeof SearchPaging) =>
  documentedQuery(schema, { offset: 'results to skip', limit: 'page size; above 1000 lowered to 1000' });
