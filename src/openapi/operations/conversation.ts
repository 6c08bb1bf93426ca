/** Comments and votes (docs/decisions.md §18), described from the routes' own schemas. */
import { CommentBody, MAX_COMMENT, NewestCommentsQuery } from '../../comments/schemas.ts';
import { ListQuery } from '../../posts/schemas.ts';
import { VoteBody } from '../../votes/routes.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  limited,
  paging,
  postId,
  postNotFound,
  retryAfter,
  type Operation,
} from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../zod.ts';

const Comment = z
  .object({
    id: z.number().int().min(1),
    postId: z.string().uuid(),
    author: z.union([S.User, z.null()]).openapi({ description: 'null once the account is deleted' }),
    body: z.string().openapi({
      description: 'plain text: line breaks kept, http(s) links and `post #N` made links by clients, nothing else',
    }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    edited: z.boolean(),
  })
  .strict()
  .openapi('Comment');
const CommentPage = z
  .object({ count: z.number().int().min(0), data: z.array(Comment) })
  .strict()
  .openapi('CommentPage', { description: '`count` is the total; `data` is the requested slice' });
const Body = json(
  CommentBody.extend({
    body: z.string().openapi({ description: `trimmed, then 1 to ${MAX_COMMENT} characters (code points)` }),
  }),
);
const VoteResult = z
  .object({
    score: z.number().int(),
    upvotes: z.number().int().min(0),
    downvotes: z.number().int().min(0),
    value: z.union([z.literal(1), z.literal(-1)]),
  })
  .strict()
  .openapi('VoteResult', { description: "the post's counts after the vote, and the caller's vote" });
const MyVote = z
  .object({ value: z.union([z.literal(1), z.literal(-1), z.literal(0)]) })
  .strict()
  .openapi('MyVote', { description: "the caller's vote; 0 when none" });
const commentId = z.object({ id: z.string().openapi({ description: "the comment's number" }) });
const commentNotFound = error('no comment with this number');

export const CONVERSATION_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/post/{id}/comment',
    operationId: 'listComments',
    tag: 'posts',
    summary: "A post's comments, oldest first",
    request: { params: postId, query: paging(ListQuery) },
    responses: {
      ...always,
      200: { description: 'a page of comments', schema: CommentPage },
      400: issues('offset or limit negative or not an integer'),
      404: postNotFound,
    },
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
  },
  {
    method: 'get',
    path: '/api/comment',
    operationId: 'newestComments',
    tag: 'posts',
    summary: 'The newest comments site-wide, or of one author',
    request: {
      query: documentedQuery(NewestCommentsQuery, {
        offset: 'results to skip',
        limit: 'page size; above 1000 lowered to 1000',
        author: 'a username; an unknown one has no comments',
      }),
    },
    responses: {
      ...always,
      200: { description: 'a page of comments, newest first', schema: CommentPage },
      400: issues('offset or limit negative or not an integer, or an empty author'),
    },
  },
  {
    method: 'patch',
    path: '/api/comment/{id}',
    operationId: 'editComment',
    tag: 'posts',
    auth: true,
    summary: 'Change a comment: its author only (still holding 0x4000); `edited` becomes true',
    request: { params: commentId, body: { required: true, ...Body } },
    responses: {
      ...always,
      ...limited,
      200: { description: 'the comment', schema: Comment },
      400: issues('an empty body after trimming, or one over 10,000 characters'),
      403: error("someone else's comment, or the author lacks 0x4000"),
      404: commentNotFound,
    },
  },
  {
    method: 'delete',
    path: '/api/comment/{id}',
    operationId: 'deleteComment',
    tag: 'posts',
    auth: true,
    summary: 'Delete a comment: its author, or a holder of 0x2000',
    request: { params: commentId },
    responses: {
      ...always,
      ...limited,
      204: { description: 'deleted' },
      403: error("someone else's comment and no 0x2000"),
      404: commentNotFound,
    },
  },
  {
    method: 'put',
    path: '/api/post/{id}/vote',
    operationId: 'votePost',
    tag: 'posts',
    auth: true,
    summary: "Vote a post up (1) or down (-1); replaces the caller's vote",
    request: { params: postId, body: { required: true, ...json(VoteBody) } },
    responses: {
      ...always,
      ...limited,
      200: { description: "the post's counts and the vote", schema: VoteResult },
      400: issues('a value other than 1 or -1'),
      404: postNotFound,
    },
  },
  {
    method: 'delete',
    path: '/api/post/{id}/vote',
    operationId: 'unvotePost',
    tag: 'posts',
    auth: true,
    summary: "Take back the caller's vote (idempotent)",
    request: { params: postId },
    responses: { ...always, ...limited, 204: { description: 'no vote' }, 404: postNotFound },
  },
  {
    method: 'get',
    path: '/api/post/{id}/vote',
    operationId: 'myVote',
    tag: 'posts',
    auth: true,
    summary: "The caller's vote on a post (0 when none)",
    request: { params: postId },
    responses: { ...always, 200: { description: 'the vote', schema: MyVote }, 404: postNotFound },
  },
];
