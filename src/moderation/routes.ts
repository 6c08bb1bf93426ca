import Router from '@koa/router';
import { PERMISSION, currentUser, hasPermission, requireAuth, requirePermission } from '../accounts/permissions.ts';
import { AppError } from '../errors.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { toPostView, type PostView } from '../kernel/views.ts';
import { DeletionRequestBody, DeletionRequestListQuery, MergeBody, REQUEST_ID } from './schemas.ts';
import type { DeletionRequestWithPost, ModerationService } from './service.ts';

export interface ModerationRoutesDeps {
  moderation: ModerationService;
  config: { mediaUrl: string };
}

/** The API's DeletionRequest: who, why, when, who decided and when, and the post while it exists. */
export interface DeletionRequestView {
  id: number;
  postId: string;
  post: PostView | null;
  reason: string;
  status: string;
  requester: { id: number; name: string };
  createdAt: string;
  decidedBy: { id: number | null; name: string } | null;
  decidedAt: string | null;
}

function requestId(ctx: AppContext): number {
  if (!REQUEST_ID.test(ctx.params.id)) throw new AppError('not_found', 'deletion request not found');
  return Number(ctx.params.id);
}

/** Deletion requests and merging duplicates (docs/decisions.md §15). */
export function moderationRoutes(deps: ModerationRoutesDeps): Router<AppState> {
  const router = new Router<AppState>();
  const { moderation } = deps;
  const view = ({ request: r, post }: DeletionRequestWithPost): DeletionRequestView => ({
    id: r.id,
    postId: r.postId,
    post: post ? toPostView(post, deps.config.mediaUrl) : null,
    reason: r.reason,
    status: r.status,
    requester: { id: r.requesterId, name: r.requesterName },
    createdAt: r.createdAt,
    decidedBy: r.decidedByName !== null ? { id: r.decidedById, name: r.decidedByName } : null,
    decidedAt: r.decidedAt,
  });
  const moderator = requirePermission(PERMISSION.deletePost);

  router.post('/api/post/:id/deletion-request', requireAuth, jsonBody(), (ctx) => {
    const { reason } = parse(DeletionRequestBody, requestBody(ctx));
    ctx.status = 201;
    ctx.body = view(moderation.file(ctx.params.id, reason, currentUser(ctx)));
  });

  router.get('/api/deletion-request', requireAuth, (ctx) => {
    const q = parse(DeletionRequestListQuery, ctx.query);
    const user = currentUser(ctx);
    const { count, data } = moderation.list(
      user,
      hasPermission(user, PERMISSION.deletePost),
      q.status,
      q.offset,
      q.limit,
    );
    ctx.body = { count, data: data.map(view) };
  });

  router.post('/api/deletion-request/:id/approve', moderator, async (ctx) => {
    ctx.body = view(await moderation.approve(requestId(ctx), currentUser(ctx)));
  });
  router.post('/api/deletion-request/:id/dismiss', moderator, (ctx) => {
    ctx.body = view(moderation.dismiss(requestId(ctx), currentUser(ctx)));
  });
  router.post('/api/deletion-request/:id/revoke', requireAuth, (ctx) => {
    ctx.body = view(moderation.revoke(requestId(ctx), currentUser(ctx)));
  });

  router.post('/api/post/:id/merge', moderator, jsonBody(), async (ctx) => {
    const { into } = parse(MergeBody, requestBody(ctx));
    ctx.body = toPostView(await moderation.merge(ctx.params.id, into, currentUser(ctx)), deps.config.mediaUrl);
  });
  return router;
}
