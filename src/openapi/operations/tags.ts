/**
 * Tags: the list with its autocomplete (docs/decisions.md §10), and governance (§15): aliases,
 * implications, and the tag view that shows them.
 */
import { AliasListQuery, MAX_PREFIX_LENGTH, MAX_TAG_LIMIT, TagListQuery } from '../../tags/schemas.ts';
import { always, documentedQuery, error, forbidden, issues, json, type Operation } from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

const name = z.string().openapi({ description: 'the exact (case-sensitive) tag name, percent-encoded' });

const TagJob = z
  .object({
    id: z.number().int(),
    tag: z.string(),
    implies: z.string(),
    initiatorId: z.number().int().nullable(),
    initiatorName: z.string().nullable(),
    cursor: z.number().int().openapi({ description: 'the last post number done' }),
    lastSeq: z
      .number()
      .int()
      .openapi({ description: 'the highest post number when the job began (later posts were written under the rule)' }),
    scanned: z.number().int(),
    changed: z.number().int().openapi({ description: 'posts edited so far (each one version and one update event)' }),
    state: z.enum(['running', 'done']),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .strict()
  .openapi('TagJob', { description: 'applying an implication to the posts there were when it was made' });

// A fresh object rather than TagCount.extend: the document would render that as TagCount (closed to
// other properties) and more, which no response could satisfy.
const TagDetail = z
  .object({
    ...S.TagCount.shape,
    aliases: z.array(z.string()).openapi({ description: 'aliases of this tag' }),
    implies: z.array(z.string()).openapi({ description: 'tags this one implies directly' }),
    impliedBy: z.array(z.string()).openapi({ description: 'tags that imply this one directly' }),
    jobs: z
      .array(TagJob)
      .openapi({ description: 'the latest jobs applying implications from or to this tag, newest first' }),
  })
  .strict()
  .openapi('TagDetail');

const Alias = z.object({ name: z.string(), target: z.string(), createdAt: z.string() }).strict().openapi('TagAlias');
const rejected = issues(
  'the change would break the vocabulary: an alias of itself, a target that is an alias, a name that is a target of aliases or takes part in implications, or a cycle; the message says which',
);

export const TAG_OPERATIONS: Operation[] = [
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
      200: { description: 'a page of tags; count is exact', schema: S.TagPage },
      400: issues('offset or limit negative or not an integer, or prefix too long'),
    },
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
  },
];
