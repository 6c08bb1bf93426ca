import { currentUser, PERMISSION, requirePermission } from '../accounts/permissions.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import { always, documentedQuery, error, forbidden, issues, json, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import type { TagGovernance } from './governance.ts';
import {
  Alias,
  AliasBody,
  AliasListQuery,
  GovernedNames,
  MAX_PREFIX_LENGTH,
  MAX_TAG_LIMIT,
  TagDetail,
  TagJob,
  TagListQuery,
  TagPage,
} from './schemas.ts';
import type { TagService } from './service.ts';

export const govern = requirePermission(PERMISSION.manageTags);
export const by = (ctx: AppContext) => {
  const user = currentUser(ctx);
  return { id: user.id, name: user.name };
};

/**
 * Tags: the list with its autocomplete (docs/decisions.md §10), and governance (§15): aliases,
 * implications, and the tag view that shows them.
 */

const name = z.string().openapi({ description: 'the exact (case-sensitive) tag name, percent-encoded' });

const rejected = issues(
  'the change would break the vocabulary: an alias of itself, a target that is an alias, a name that is a target of aliases or takes part in implications, or a cycle; the message says which',
);

/**
 * GET /api/tag (prefix autocomplete) and GET /api/tag/[name], both public (docs/decisions.md §10); the
 * vocabulary's governance (docs/decisions.md §15): aliases and implications, changed with 0x1000.
 */
export const tagsFeature: Feature<{ tags: TagService; tagGovernance: TagGovernance }> = {
  name: 'tags',
  endpoints: [
    {
      method: 'get',
      path: '/api/tag',
      operationId: 'listTags',
      tag: 'tags',
      summary: 'Tags carried by at least one post, most used first; with prefix, an autocomplete',
      request: {
        query: documentedQuery(
          TagListQuery.extend({ prefix: TagListQuery.shape.prefix.openapi({ maxLength: MAX_PREFIX_LENGTH }) }),
          {
            prefix: `case-insensitive start of the name; absent: every tag; at most ${MAX_PREFIX_LENGTH} characters`,
            offset: 'tags to skip',
            limit: `page size; above ${MAX_TAG_LIMIT} lowered to ${MAX_TAG_LIMIT}`,
          },
        ),
      },
      responses: {
        ...always,
        200: { description: 'a page of tags; count is exact', schema: TagPage },
        400: issues('offset or limit negative or not an integer, or prefix too long'),
      },
      handle: ({ tags }) => [
        (ctx) => {
          const q = parse(TagListQuery, ctx.query);
          ctx.body = tags.list(q.prefix, q.offset, q.limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/tag/alias',
      operationId: 'listTagAliases',
      tag: 'tags',
      summary: 'Tag aliases, by name',
      request: {
        query: documentedQuery(AliasListQuery, { offset: 'aliases to skip', limit: 'page size (at most 100)' }),
      },
      responses: {
        ...always,
        200: {
          description: 'a page of aliases',
          schema: z.object({ count: z.number().int(), data: z.array(Alias) }).strict(),
        },
        400: issues('offset or limit negative or not an integer'),
      },
      handle: ({ tagGovernance }) => [
        (ctx) => {
          const q = parse(AliasListQuery, ctx.query);
          ctx.body = tagGovernance.listAliases(q.offset, q.limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/tag/{name}',
      operationId: 'getTag',
      tag: 'tags',
      summary: 'One tag by its exact name, with its post count, aliases, implications and implication jobs',
      request: { params: z.object({ name }) },
      responses: {
        ...always,
        200: { description: 'the tag', schema: TagDetail },
        404: error('no post carries a tag of this name'),
      },
      handle: ({ tags, tagGovernance }) => [
        (ctx) => {
          ctx.body = { ...tags.get(ctx.params.name), ...tagGovernance.describe(ctx.params.name) };
        },
      ],
    },
    {
      method: 'put',
      path: '/api/tag/{name}/alias',
      operationId: 'putTagAlias',
      tag: 'tags',
      auth: true,
      summary: 'Make a tag an alias of another, and retag the posts carrying it, each as an edit (needs 0x1000)',
      request: { params: z.object({ name }), body: json(z.object({ target: z.string() })) },
      responses: {
        ...always,
        200: {
          description: 'the alias, and how many posts were retagged',
          schema: z.object({ name: z.string(), target: z.string(), retagged: z.number().int() }).strict(),
        },
        400: rejected,
        403: forbidden,
      },
      handle: ({ tagGovernance }) => [
        govern,
        jsonBody(),
        (ctx) => {
          const { name } = parse(GovernedNames, ctx.params);
          const { target } = parse(AliasBody, requestBody(ctx));
          ctx.body = tagGovernance.putAlias(name, target, by(ctx));
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/tag/{name}/alias',
      operationId: 'deleteTagAlias',
      tag: 'tags',
      auth: true,
      summary: 'Remove an alias (posts keep their tags; needs 0x1000)',
      request: { params: z.object({ name }) },
      responses: { ...always, 204: { description: 'removed' }, 403: forbidden, 404: error('no such alias') },
      handle: ({ tagGovernance }) => [
        govern,
        (ctx) => {
          tagGovernance.deleteAlias(ctx.params.name);
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'put',
      path: '/api/tag/{name}/implies/{other}',
      operationId: 'putTagImplication',
      tag: 'tags',
      auth: true,
      summary: 'Make a tag imply another; a background job applies it to existing posts (needs 0x1000)',
      request: { params: z.object({ name, other: name }) },
      responses: {
        ...always,
        200: {
          description: 'the implication (aliases resolved) and its job; job is null when it existed already',
          schema: z.object({ tag: z.string(), implies: z.string(), job: TagJob.nullable() }).strict(),
        },
        400: rejected,
        403: forbidden,
      },
      handle: ({ tagGovernance }) => [
        govern,
        (ctx) => {
          const { name, other } = parse(GovernedNames, ctx.params);
          ctx.body = tagGovernance.putImplication(name, other!, by(ctx));
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/tag/{name}/implies/{other}',
      operationId: 'deleteTagImplication',
      tag: 'tags',
      auth: true,
      summary: 'Remove an implication; posts keep every tag (needs 0x1000)',
      request: { params: z.object({ name, other: name }) },
      responses: { ...always, 204: { description: 'removed' }, 403: forbidden, 404: error('no such implication') },
      handle: ({ tagGovernance }) => [
        govern,
        (ctx) => {
          tagGovernance.deleteImplication(ctx.params.name, ctx.params.other);
          ctx.status = 204;
        },
      ],
    },
  ],
};
