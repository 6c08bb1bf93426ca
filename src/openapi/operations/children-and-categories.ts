/** A post's children and tag categories (docs/decisions.md §19), described from the routes' own schemas. */
import { ChildrenQuery } from '../../posts/parents/schemas.ts';
import { CategoryBody } from '../../tags/schemas.ts';
import {
  always,
  documentedQuery,
  forbidden,
  issues,
  json,
  postId,
  postNotFound,
  type Operation,
} from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

export const CHILDREN_AND_CATEGORY_OPERATIONS: Operation[] = [
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
