import { currentUser, PERMISSION, requirePermission } from '../accounts/permissions.ts';
import { AppError } from '../errors.ts';
import { jsonBody, optionalBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  postId,
  postNotFound,
  type Feature,
} from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import {
  CreatePool,
  MAX_POOL_NAME,
  MAX_POOL_POSTS,
  PatchPool,
  Pool,
  PoolChange,
  PoolDetail,
  PoolHistoryQuery,
  PoolListQuery,
  PoolPlace,
  poolIdOf,
} from './schemas.ts';
import type { PoolService } from './service.ts';

const by = (ctx: AppContext) => {
  const user = currentUser(ctx);
  return { id: user.id, name: user.name };
};
const poolIdOfRequest = (ctx: AppContext) => {
  const id = poolIdOf(ctx.params.id);
  if (id === undefined) throw new AppError('not_found', 'pool not found');
  return id;
};

const poolId = z.object({ id: z.string().openapi({ description: 'the pool id' }) });
const poolNotFound = error('no pool with this id');
const refused = issues(
  `name not 1 to ${MAX_POOL_NAME} characters, more than ${MAX_POOL_POSTS} posts, a post listed twice, an unknown post id, or an unknown field`,
);
const page = (item: z.ZodTypeAny) => z.object({ count: z.number().int().min(0), data: z.array(item) }).strict();

/**
 * Pools (docs/decisions.md §19): reading is public; creating and editing need 0x4 (the edit bit),
 * deleting 0x2000. `GET /api/post/[id]/pools` lists a post's pools with its neighbours in each.
 */
export const poolsFeature: Feature<{ pools: PoolService; postService: { find(ref: string): PostRecord } }> = {
  name: 'pools',
  endpoints: [
    {
      method: 'post',
      path: '/api/pool',
      operationId: 'createPool',
      tag: 'pools',
      auth: true,
      summary: 'Create a pool, optionally with its posts in order (needs 0x4)',
      request: { body: { required: true, ...json(CreatePool) } },
      responses: {
        ...always,
        201: { description: 'the pool', schema: PoolDetail },
        400: refused,
        403: forbidden,
        409: error('a pool of this name exists already (names are unique in any case)'),
      },
      handle: ({ pools }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        async (ctx) => {
          const input = parse(CreatePool, requestBody(ctx));
          ctx.body = await pools.create(input, by(ctx));
          ctx.status = 201;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/pool',
      operationId: 'listPools',
      tag: 'pools',
      summary: 'Pools whose name starts with a prefix (any case), by name',
      request: {
        query: documentedQuery(PoolListQuery, {
          prefix: 'the start of the name, any case',
          offset: 'pools to skip',
          limit: 'page size (at most 100)',
        }),
      },
      responses: { ...always, 200: { description: 'a page of pools', schema: page(Pool) }, 400: issues() },
      handle: ({ pools }) => [
        (ctx) => {
          const q = parse(PoolListQuery, ctx.query);
          ctx.body = pools.list(q.prefix, q.offset, q.limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/pool/{id}',
      operationId: 'getPool',
      tag: 'pools',
      summary: 'One pool with its posts in order',
      request: { params: poolId },
      responses: { ...always, 200: { description: 'the pool', schema: PoolDetail }, 404: poolNotFound },
      handle: ({ pools }) => [
        (ctx) => {
          ctx.body = pools.get(poolIdOfRequest(ctx));
        },
      ],
    },
    {
      method: 'patch',
      path: '/api/pool/{id}',
      operationId: 'patchPool',
      tag: 'pools',
      auth: true,
      summary: 'Rename, describe or reorder a pool; postIds replaces the whole order (needs 0x4)',
      request: { params: poolId, body: { required: false, ...json(PatchPool) } },
      responses: {
        ...always,
        200: { description: 'the pool as changed', schema: PoolDetail },
        400: refused,
        403: forbidden,
        404: poolNotFound,
        409: error('another pool has this name (in any case)'),
      },
      handle: ({ pools }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        async (ctx) => {
          const input = parse(PatchPool, optionalBody(ctx));
          ctx.body = await pools.patch(poolIdOfRequest(ctx), input, by(ctx));
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/pool/{id}',
      operationId: 'deletePool',
      tag: 'pools',
      auth: true,
      summary: 'Delete a pool; its posts stay, its history stays readable (needs 0x2000)',
      request: { params: poolId },
      responses: { ...always, 204: { description: 'deleted' }, 403: forbidden, 404: poolNotFound },
      handle: ({ pools }) => [
        requirePermission(PERMISSION.deletePost),
        async (ctx) => {
          await pools.delete(poolIdOfRequest(ctx), by(ctx));
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/pool/{id}/history',
      operationId: 'poolHistory',
      tag: 'pools',
      summary: "Every change of a pool, who and when, newest first (a deleted pool's too)",
      request: {
        params: poolId,
        query: documentedQuery(PoolHistoryQuery, { offset: 'changes to skip', limit: 'page size (at most 100)' }),
      },
      responses: {
        ...always,
        200: { description: 'a page of changes', schema: page(PoolChange) },
        400: issues(),
        404: error('no pool with this id ever existed'),
      },
      handle: ({ pools }) => [
        (ctx) => {
          const q = parse(PoolHistoryQuery, ctx.query);
          ctx.body = pools.history(poolIdOfRequest(ctx), q.offset, q.limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/post/{id}/pools',
      operationId: 'postPools',
      tag: 'pools',
      summary: "The pools a post is in, with the posts before and after it in each (a post page's previous/next)",
      request: { params: postId },
      responses: {
        ...always,
        200: { description: 'the pools, by id', schema: z.object({ data: z.array(PoolPlace) }).strict() },
        404: postNotFound,
      },
      handle: ({ pools, postService }) => [
        (ctx) => {
          ctx.body = { data: pools.placesOf(postService.find(ctx.params.id)) };
        },
      ],
    },
  ],
};
