/**
 * The pieces every operation description is made of: the operation's shape, the responses any
 * endpoint can give, and small builders. The area files under ./operations/ use them; a new
 * feature adds its operations in a file of its own there and lists it in ./operations.ts.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodTypeAny } from 'zod';
import { queryIntRange } from '../http/validate.ts';
import { ListQuery } from '../posts/schemas.ts';
import { listQuery as SearchPaging } from '../search/paging-params.ts';
import * as S from './schemas.ts';
import { z } from './zod.ts';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  description: string;
  /** absent: no body (204, 304) or a binary body described by contentTypes alone */
  schema?: ZodTypeAny;
  /** default application/json */
  contentTypes?: string[];
  headers?: Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;
}

export interface Operation {
  method: Method;
  /** OpenAPI form: /api/post/{id} */
  path: string;
  operationId: string;
  summary: string;
  tag:
    | 'accounts'
    | 'posts'
    | 'tags'
    | 'search'
    | 'webhooks'
    | 'media'
    | 'operations'
    | 'moderation'
    | 'pools'
    | 'booru';
  /**
   * Which credentials the operation takes; the registry turns it into the operation's `security`
   * (registry.ts), so a new operation only sets this. Absent or false: public, every credential
   * optional (an invalid one is still 401). true: the access key, an app key or the session cookie.
   * 'account': the access key or the session cookie only; an app key is 403 (managing keys,
   * passkeys or the account key, docs/decisions.md §14).
   */
  auth?: boolean | 'account';
  request?: RouteConfig['request'];
  responses: Record<number, Reply>;
}

export const json = (schema: ZodTypeAny) => ({ content: { 'application/json': { schema } } });
export const error = (description: string): Reply => ({ description, schema: S.ErrorBody });
/** The reply of every operation that signs the caller in: Self, and the session cookie. */
export const signedIn = (description: string): Reply => ({
  description,
  schema: S.Self,
  headers: {
    'Set-Cookie': {
      description: 'nmsl_cookie=...; Path=/; Expires; Max-Age; Secure; HttpOnly; SameSite=lax',
      schema: { type: 'string' },
    },
  },
});
export const retryAfter = {
  'Retry-After': { description: 'seconds until a retry may succeed', schema: { type: 'integer' as const } },
};

// Responses any endpoint can give: the access key is checked before routing (docs/decisions.md §2), and
// the body cap before any body is read.
export const always: Record<number, Reply> = {
  401: error(
    'X-Access-Key is invalid (on every endpoint, public ones too), or no valid credential where one is required',
  ),
  413: error('request body over the hard cap (5 MiB)'),
  500: error('a bug; the body never carries details'),
};
export const issues = (
  description = 'the request does not match the schema (also: malformed JSON, wrong content type)',
): Reply => ({ description, schema: S.ValidationIssues });
export const limited: Record<number, Reply> = { 429: { ...error('rate limit reached'), headers: retryAfter } };
export const searchDown: Record<number, Reply> = {
  503: { ...error('the search index is unavailable; try again shortly'), headers: retryAfter },
};
export const forbidden = error('the account lacks the permission this operation needs');
export const postNotFound = error('no post with this id (UUID or number); malformed ids too');
export const webhookNotFound = error("no webhook with this id among the caller's own");

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

/** A multipart file part: a string of format binary. */
export const binary = (description: string) => z.string().openapi({ format: 'binary', description });

export const postId = z.object({ id: z.string().openapi({ description: "the post's UUID, or its number" }) });
export const webhookId = z.object({ id: z.string().uuid() });

/**
 * A route's query schema as the document shows it: every queryInt field as an integer with the
 * range and default the route validates with (the same numbers, read from the schema), and a
 * description per field.
 */
export function documentedQuery<T extends z.ZodRawShape>(
  schema: z.ZodObject<T>,
  descriptions: Partial<Record<keyof T & string, string>>,
) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => {
      const range = queryIntRange(field);
      const shown: ZodTypeAny = range ? z.number().int().min(range.min).max(range.max).default(range.default) : field;
      const description = descriptions[key as keyof T & string];
      return [key, description ? shown.openapi({ description }) : shown];
    }),
  );
  return z.object(shape);
}

/** Paging as GET /api/post/ takes it (docs/decisions.md §4); the schema is the route's own. */
export const paging = (schema: typeof ListQuery | typeof SearchPaging) =>
  documentedQuery(schema, { offset: 'results to skip', limit: 'page size; above 1000 lowered to 1000' });
