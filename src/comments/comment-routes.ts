import { PERMISSION, currentUser, hasPermission, requirePermission } from '../accounts/permissions.ts';
import { AppError } from '../errors.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  limited,
  postId,
  postNotFound,
  retryAfter,
  type Feature,
} from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { documentedListQuery, PAGING_WORDS, parseListPaging } from '../search/paging-params.ts';
import { COMMENT_ID, Comment, CommentBody, CommentPage, MAX_COMMENT, NewestCommentsQuery } from './schemas.ts';
import type { CommentActor, CommentService } from './service.ts';

function commentId(ctx: AppContext): number {
  if (!COMMENT_ID.test(ctx.params.id)) throw new AppError('not_found', 'comment not found');
  return Number(ctx.params.id);
}

function actor(ctx: AppContext): CommentActor {
  const user = currentUser(ctx);
  return {
    id: user.id,
    mayComment: hasPermission(user, PERMISSION.comment),
    moderates: hasPermission(user, PERMISSION.deletePost),
  };
}

/** The body as the document shows it: the route's own schema, with its limit in words. */
const Body = json(
  CommentBody.extend({
    body: z.string().openapi({ description: `trimmed, then 1 to ${MAX_COMMENT} characters (code points)` }),
  }),
);
const commentIdParam = z.object({ id: z.string().openapi({ description: "the comment's number" }) });
const commentNotFound = error('no comment with this number');

/** Comments (docs/decisions.md §18): everyone reads; 0x4000 writes; the author edits; the author or 0x2000 deletes. */
export const commentsFeature: Feature<{ comments: CommentService }> = {
  name: 'comments',
  endpoints: [
    {
      method: 'get',
      path: '/api/post/{id}/comment',
      operationId: 'listComments',
      tag: 'posts',
      summary: "A post's comments, oldest first",
      request: { params: postId, query: documentedListQuery() },
      responses: {
        ...always,
        200: { description: 'a page of comments', schema: CommentPage },
        400: issues('offset or limit negative or not an integer'),
        404: postNotFound,
      },
      handle: ({ comments }) => [
        (ctx) => {
          const { offset, limit } = parseListPaging(ctx.query);
          ctx.body = comments.ofPost(ctx.params.id, offset, limit);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/post/{id}/comment',
      operationId: 'addComment',
      tag: 'posts',
      auth: true,
      summary: 'Comment on a post (0x4000); at most 10 comments a minute per account',
      request: { params: postId, body: { required: true, ...Body } },
      responses: {
        ...always,
        201: { description: 'the comment', schema: Comment },
        400: issues('an empty body after trimming, or one over 10,000 characters'),
        403: forbidden,
        404: postNotFound,
        429: { ...error('more than 10 comments in a minute (or another rate limit)'), headers: retryAfter },
      },
      handle: ({ comments }) => [
        requirePermission(PERMISSION.comment),
        jsonBody(),
        async (ctx) => {
          const { body } = parse(CommentBody, requestBody(ctx));
          ctx.body = await comments.add(actor(ctx), ctx.params.id, body);
          ctx.status = 201;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/comment',
      operationId: 'newestComments',
      tag: 'posts',
      summary: 'The newest comments site-wide, or of one author',
      request: {
        query: documentedQuery(NewestCommentsQuery, {
          ...PAGING_WORDS,
          author: 'a username; an unknown one has no comments',
        }),
      },
      responses: {
        ...always,
        200: { description: 'a page of comments, newest first', schema: CommentPage },
        400: issues('offset or limit negative or not an integer, or an empty author'),
      },
      handle: ({ comments }) => [
        (ctx) => {
          const { author, offset, limit } = parse(NewestCommentsQuery, ctx.query);
          ctx.body = comments.newest(author, offset, limit);
        },
      ],
    },
    {
      method: 'patch',
      path: '/api/comment/{id}',
      operationId: 'editComment',
      tag: 'posts',
      auth: true,
      summary: 'Change a comment: its author only (still holding 0x4000); `edited` becomes true',
      request: { params: commentIdParam, body: { required: true, ...Body } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the comment', schema: Comment },
        400: issues('an empty body after trimming, or one over 10,000 characters'),
        403: error("someone else's comment, or the author lacks 0x4000"),
        404: commentNotFound,
      },
      handle: ({ comments }) => [
        jsonBody(),
        async (ctx) => {
          const id = commentId(ctx);
          const { body } = parse(CommentBody, requestBody(ctx));
          ctx.body = await comments.edit(actor(ctx), id, body);
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/comment/{id}',
      operationId: 'deleteComment',
      tag: 'posts',
      auth: true,
      summary: 'Delete a comment: its author, or a holder of 0x2000',
      request: { params: commentIdParam },
      responses: {
        ...always,
        ...limited,
        204: { description: 'deleted' },
        403: error("someone else's comment and no 0x2000"),
        404: commentNotFound,
      },
      handle: ({ comments }) => [
        async (ctx) => {
          await comments.remove(actor(ctx), commentId(ctx));
          ctx.status = 204;
        },
      ],
    },
  ],
};
