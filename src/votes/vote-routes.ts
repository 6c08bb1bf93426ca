import { currentUser } from '../accounts/permissions.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import { always, json, issues, limited, postId, postNotFound, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import type { VoteService } from './service.ts';
import { MyVote, VoteBody, VoteResult } from './vote-shapes.ts';

/** Votes (docs/decisions.md §18): any authenticated account, one vote per post. */
export const votesFeature: Feature<{ votes: VoteService }> = {
  name: 'votes',
  endpoints: [
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
      handle: ({ votes }) => [
        jsonBody(),
        async (ctx) => {
          const { value } = parse(VoteBody, requestBody(ctx));
          ctx.body = await votes.vote(currentUser(ctx).id, ctx.params.id, value);
        },
      ],
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
      handle: ({ votes }) => [
        async (ctx) => {
          await votes.unvote(currentUser(ctx).id, ctx.params.id);
          ctx.status = 204;
        },
      ],
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
      handle: ({ votes }) => [
        (ctx) => {
          ctx.body = votes.valueOf(currentUser(ctx).id, ctx.params.id);
        },
      ],
    },
  ],
};
