/**
 * Organization (docs/decisions.md §19): pools, a post's pools and children, tag categories, described
 * from the routes' own schemas.
 */
import { ChildrenQuery } from '../../posts/parents/schemas.ts';
import { CategoryBody } from '../../tags/schemas.ts';
import {
  CreatePool,
  MAX_POOL_NAME,
  MAX_POOL_POSTS,
  PatchPool,
  PoolHistoryQuery,
  PoolListQuery,
} from '../../pools/schemas.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  postId,
  postNotFound,
  type Operation,
} from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../http/zod.ts';

const time = z.string().datetime({ precision: 3 });

export const Pool = z
  .object({
    id: z.number().int().min(1),
    name: z.string(),
    description: z.string(),
    postCount: z.number().int().min(0).max(MAX_POOL_POSTS),
    createdAt: time,
    updatedAt: time,
  })
  .strict()
  .openapi('Pool');

const PoolDetail = z
  .object({
    ...Pool.shape,
    postIds: z.array(z.string().uuid()).max(MAX_POOL_POSTS).openapi({ description: "the posts' UUIDs, in order" }),
  })
  .strict()
  .openapi('PoolDetail');

const change = <T extends z.ZodTypeAny>(value: T) => z.object({ old: value, new: value }).strict();
const PoolChange = z
  .object({
    id: z.number().int(),
    poolId: z.number().int(),
    action: z.enum(['create', 'edit', 'delete', 'post-deleted', 'post-merged']).openapi({
      description:
        'post-deleted: a post of the pool was deleted; post-merged: merged into another, which took its place',
    }),
    user: z.union([S.User, z.null()]).openapi({ description: 'who made it; null once the account is removed' }),
    changes: z
      .object({
        name: change(z.string()).optional(),
        description: change(z.string()).optional(),
        postIds: change(z.array(z.string().uuid())).optional(),
      })
      .strict()
      .openapi({ description: "what changed; a pool's creation changes from empty values, its deletion to them" }),
    createdAt: time,
  })
  .strict()
  .openapi('PoolChange');

const poolId = z.object({ id: z.string().openapi({ description: 'the pool id' }) });
const poolNotFound = error('no pool with this id');
const refused = issues(
  `name not 1 to ${MAX_POOL_NAME} characters, more than ${MAX_POOL_POSTS} posts, a post listed twice, an unknown post id, or an unknown field`,
);
const page = (item: z.ZodTypeAny) => z.object({ count: z.number().int().min(0), data: z.array(item) }).strict();

export const ORGANIZATION_OPERATIONS: Operation[] = [
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
  },
  {
    method: 'get',
    path: '/api/pool/{id}',
    operationId: 'getPool',
    tag: 'pools',
    summary: 'One pool with its posts in order',
    request: { params: poolId },
    responses: { ...always, 200: { description: 'the pool', schema: PoolDetail }, 404: poolNotFound },
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
      200: {
        description: 'the pools, by id',
        schema: z
          .object({
            data: z.array(
              z
                .object({
                  pool: Pool,
                  position: z.number().int().min(0).openapi({ description: 'the post is the position+1st' }),
                  previous: z.string().uuid().nullable(),
                  next: z.string().uuid().nullable(),
                })
                .strict(),
            ),
          })
          .strict(),
      },
      404: postNotFound,
    },
  },
  {
    method: 'get',
    path: '/api/post/{id}/children',
    operationId: 'postChildren',
    tag: 'posts',
    summary: "A post's children (posts whose parentId is it), by post number",
    request: {
      params: postId,
      query: documentedQuery(ChildrenQuery, { offset: 'children to skip', limit: 'page size (at most 100)' }),
    },
    responses: {
      ...always,
      200: { description: 'a page of children; count is all of them', schema: S.PostPage },
      400: issues(),
      404: postNotFound,
    },
  },
  {
    method: 'put',
    path: '/api/tag/{name}/category',
    operationId: 'putTagCategory',
    tag: 'tags',
    auth: true,
    summary: "Set a tag's category; a tag nobody has used yet is created, an alias means its target (needs 0x1000)",
    request: {
      params: z.object({ name: z.string().openapi({ description: 'the exact tag name, percent-encoded' }) }),
      body: { required: true, ...json(CategoryBody) },
    },
    responses: {
      ...always,
      200: {
        description: 'the tag',
        schema: z
          .object({ id: z.number().int(), name: z.string(), count: z.number().int().min(0), category: S.TagCategory })
          .strict(),
      },
      400: issues('not a category, or not a tag name'),
      403: forbidden,
    },
  },
];
