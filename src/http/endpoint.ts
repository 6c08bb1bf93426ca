/**
 * An endpoint, declared once: its OpenAPI operation (method, path, credentials, request and response
 * schemas) and its handler in one object, in the feature folder that serves it. The router mounts it
 * from that object (method, path and the auth gate come from the operation) and the OpenAPI document
 * (src/openapi/registry.ts), hence the typed client, lists the same object: no second place to keep in
 * step. A feature exports one `Feature`: its name and its endpoints, in the order the document lists them.
 */
import Router from '@koa/router';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type Koa from 'koa';
import type { ZodTypeAny } from 'zod';
import type { AppState } from './context.ts';
import { ErrorBody, ValidationIssues } from './shapes.ts';
import { queryIntRange } from './validate.ts';
import { z } from '../util/zod.ts';

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
   * and the router into its gate. Absent or false: public, every credential optional (an invalid one
   * is still 401). true: the access key, an app key or the session cookie. 'account': the access key
   * or the session cookie only; an app key is 403 (managing keys, passkeys or the account key,
   * docs/decisions.md §14).
   */
  auth?: boolean | 'account';
  request?: RouteConfig['request'];
  responses: Record<number, Reply>;
}

/** An operation with what serves it, given the feature's services. */
export interface Endpoint<D> extends Operation {
  /** Middleware before the auth gate (an error body of another shape that the gate's refusals take too). */
  before?: Koa.Middleware<AppState>[];
  /** The middleware after the operation's auth gate: body parsers, checks, and last the handler. */
  handle(deps: D): Koa.Middleware<AppState>[];
}

/** A feature's HTTP side: its endpoints, declared once. */
export interface Feature<D> {
  name: string;
  /** serves the busiest paths (a page view is one search and 24 thumbnails): mounted before the others */
  busy?: true;
  endpoints: readonly Endpoint<D>[];
}

/** What a credential requirement becomes in the router (the accounts feature gives it: src/app.ts). */
export type AuthGate = (auth: Operation['auth']) => Koa.Middleware<AppState>[];

/**
 * `/api/post/{id}/vote` as koa-router writes it: `/api/post/:id/vote`. A trailing slash goes (`/api/post/`
 * is routed as `/api/post`, which takes both): the route is the label of the request log and the metrics.
 */
export const routerPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1').replace(/(.)\/$/, '$1');

/** A router serving a feature's endpoints, each behind the gate its `auth` names. */
export function featureRouter<D>(feature: Feature<D>, deps: D, gate: AuthGate): Router<AppState> {
  const router = new Router<AppState>();
  for (const e of feature.endpoints)
    router[e.method](routerPath(e.path), ...(e.before ?? []), ...gate(e.auth), ...e.handle(deps));
  return router;
}

export const json = (schema: ZodTypeAny) => ({ content: { 'application/json': { schema } } });
export const error = (description: string): Reply => ({ description, schema: ErrorBody });
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
): Reply => ({ description, schema: ValidationIssues });
export const limited: Record<number, Reply> = { 429: { ...error('rate limit reached'), headers: retryAfter } };
export const searchDown: Record<number, Reply> = {
  503: { ...error('the search index is unavailable; try again shortly'), headers: retryAfter },
};
export const forbidden = error('the account lacks the permission this operation needs');
export const postNotFound = error('no post with this id (UUID or number); malformed ids too');

/** A multipart file part: a string of format binary. */
export const binary = (description: string) => z.string().openapi({ format: 'binary', description });

export const postId = z.object({ id: z.string().openapi({ description: "the post's UUID, or its number" }) });

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
