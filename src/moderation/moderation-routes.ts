import { PAGING_WORDS } from '../search/paging-params.ts';
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
  type Endpoint,
  type Feature,
} from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { Post, User } from '../kernel/shapes.ts';
import { toPostView } from '../kernel/views.ts';
import { z } from '../util/zod.ts';
import { REQUEST_STATUSES } from './deletion-request-repository.ts';
import { DeletionRequestBody, DeletionRequestListQuery, MAX_REASON, MergeBody, REQUEST_ID } from './schemas.ts';
import type { DeletionRequestWithPost, ModerationService } from './service.ts';

interface ModerationDeps {
  moderation: ModerationService;
  config: { mediaUrl: string };
}

function requestId(ctx: AppContext): number {
  if (!REQUEST_ID.test(ctx.params.id)) throw new AppError('not_found', 'deletion request not found');
  return Number(ctx.params.id);
}

const moderator = requirePermission(PERMISSION.deletePost);

const RequestStatus = z.enum(REQUEST_STATUSES).openapi('DeletionRequestStatus', {
  description: '`moot`: closed without a decision because the post was already gone (deleted, merged away)',
});

export const DeletionRequest = z
  .object({
    id: z.number().int(),
    postId: z.string().uuid(),
    // the post while it exists, else null
    post: z.union([Post, z.null()]),
    reason: z.string(),
    status: RequestStatus,
    requester: User,
    createdAt: z.string(),
    decidedBy: z
      .object({ id: z.number().int().nullable(), name: z.string() })
      .strict()
      .nullable()
      .openapi({ description: 'who approved, dismissed or revoked it; null while pending' }),
    decidedAt: z.string().nullable(),
  })
  .strict()
  .openapi('DeletionRequest');

const DeletionRequestPage = z
  .object({ count: z.number().int(), data: z.array(DeletionRequest) })
  .strict()
  .openapi('DeletionRequestPage');
const requestIdParam = z.object({ id: z.string().openapi({ description: "the request's number" }) });
const requestNotFound = error('no deletion request with this number');
const closed = error('the request is no longer pending (approved, dismissed, revoked or moot)');
const Reason = DeletionRequestBody.extend({
  reason: z.string().openapi({ description: `trimmed, then 1 to ${MAX_REASON} characters` }),
});

const decide = (
  action: 'approve' | 'dismiss' | 'revoke',
  operationId: string,
  summary: string,
  who: string,
  handle: Endpoint<ModerationDeps>['handle'],
): Endpoint<ModerationDeps> => ({
  method: 'post',
  path: `/api/deletion-request/{id}/${action}`,
  operationId,
  tag: 'moderation',
  auth: true,
  summary,
  request: { params: requestIdParam },
  responses: {
    ...always,
    ...limited,
    200: { description: 'the request as decided', schema: DeletionRequest },
    403: error(who),
    404: requestNotFound,
    409: closed,
  },
  handle,
});

/** The API's DeletionRequest: who, why, when, who decided and when, and the post while it exists. */
export type DeletionRequestView = z.infer<typeof DeletionRequest>;

function view({ request: r, post }: DeletionRequestWithPost, mediaUrl: string): DeletionRequestView {
  return {
    id: r.id,
    postId: r.postId,
    post: post ? toPostView(post, mediaUrl) : null,
    reason: r.reason,
    status: r.status,
    requester: { id: r.requesterId, name: r.requesterName },
    createdAt: r.createdAt,
    decidedBy: r.decidedByName !== null ? { id: r.decidedById, name: r.decidedByName } : null,
    decidedAt: r.decidedAt,
  };
}

/** Deletion requests and merging duplicates (docs/decisions.md §15). */
export const moderationFeature: Feature<ModerationDeps> = {
  name: 'moderation',
  endpoints: [
    {
      method: 'post',
      path: '/api/post/{id}/deletion-request',
      operationId: 'requestDeletion',
      tag: 'moderation',
      auth: true,
      summary: "Ask for a post's removal, with a reason (any account; one pending request per account and post)",
      request: { params: postId, body: { required: true, ...json(Reason) } },
      responses: {
        ...always,
        ...limited,
        201: { description: 'the pending request', schema: DeletionRequest },
        400: issues('reason missing, blank or too long'),
        404: postNotFound,
        409: error('the caller already has a pending request for this post'),
      },
      handle: ({ moderation, config }) => [
        jsonBody(),
        (ctx) => {
          const { reason } = parse(DeletionRequestBody, requestBody(ctx));
          ctx.status = 201;
          ctx.body = view(moderation.file(ctx.params.id, reason, currentUser(ctx)), config.mediaUrl);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/deletion-request',
      operationId: 'listDeletionRequests',
      tag: 'moderation',
      auth: true,
      summary:
        "Deletion requests, newest first: all of them with the delete-post permission (0x2000), else the caller's own",
      request: {
        query: documentedQuery(DeletionRequestListQuery, {
          status: 'only requests in this state',
          offset: 'requests to skip',
          limit: PAGING_WORDS.limit,
        }),
      },
      responses: {
        ...always,
        200: { description: 'a page of requests', schema: DeletionRequestPage },
        400: issues('unknown status, or offset/limit not a non-negative integer'),
      },
      handle: ({ moderation, config }) => [
        (ctx) => {
          const q = parse(DeletionRequestListQuery, ctx.query);
          const user = currentUser(ctx);
          const { count, data } = moderation.list(
            user,
            hasPermission(user, PERMISSION.deletePost),
            q.status,
            q.offset,
            q.limit,
          );
          ctx.body = { count, data: data.map((d) => view(d, config.mediaUrl)) };
        },
      ],
    },
    decide(
      'approve',
      'approveDeletionRequest',
      'Approve: delete the post (0x2000); other pending requests for it close as moot; a post already gone closes the request as moot',
      'needs the delete-post permission (0x2000)',
      ({ moderation, config }) => [
        moderator,
        async (ctx) => {
          ctx.body = view(await moderation.approve(requestId(ctx), currentUser(ctx)), config.mediaUrl);
        },
      ],
    ),
    decide(
      'dismiss',
      'dismissDeletionRequest',
      'Dismiss: close the request, keep the post (0x2000)',
      'needs the delete-post permission (0x2000)',
      ({ moderation, config }) => [
        moderator,
        (ctx) => {
          ctx.body = view(moderation.dismiss(requestId(ctx), currentUser(ctx)), config.mediaUrl);
        },
      ],
    ),
    decide(
      'revoke',
      'revokeDeletionRequest',
      "Revoke one's own pending request",
      'only the requester may revoke',
      ({ moderation, config }) => [
        (ctx) => {
          ctx.body = view(moderation.revoke(requestId(ctx), currentUser(ctx)), config.mediaUrl);
        },
      ],
    ),
    {
      method: 'post',
      path: '/api/post/{id}/merge',
      operationId: 'mergePost',
      tag: 'moderation',
      auth: true,
      summary:
        "Merge a duplicate into another post (0x2000), in one transaction: `into` gains the union of both posts' tags (a version, an update event), favorites move, then this post is deleted (a delete event)",
      request: {
        params: postId,
        body: {
          required: true,
          ...json(MergeBody.extend({ into: z.string().openapi({ description: 'the post to keep (UUID or number)' }) })),
        },
      },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the post merged into, as the merge left it', schema: Post },
        400: issues('into missing, the post itself, or the union would exceed 64 tags'),
        403: forbidden,
        404: error('either post does not exist (also: a concurrent merge got there first)'),
      },
      handle: ({ moderation, config }) => [
        moderator,
        jsonBody(),
        async (ctx) => {
          const { into } = parse(MergeBody, requestBody(ctx));
          ctx.body = toPostView(await moderation.merge(ctx.params.id, into, currentUser(ctx)), config.mediaUrl);
        },
      ],
    },
  ],
};
