import Router from '@koa/router';
import { PERMISSION, currentUser, requirePermission } from '../../accounts/permissions.ts';
import { jsonBody, requestBody } from '../../http/body.ts';
import type { AppState } from '../../http/context.ts';
import { parse } from '../../http/validate.ts';
import { toPostView } from '../../kernel/views.ts';
import type { PostHistory } from './history.ts';
import { RevertBody, VersionsQuery } from './schemas.ts';

/** GET /api/post/[id]/versions (public) and POST /api/post/[id]/revert (edit bit), docs/decisions.md §9. */
export function versionRoutes(deps: { history: PostHistory; config: { mediaUrl: string } }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/post' });

  router.get('/:id/versions', (ctx) => {
    const q = parse(VersionsQuery, ctx.query);
    ctx.body = deps.history.list(ctx.params.id, q.offset, q.limit);
  });

  router.post('/:id/revert', requirePermission(PERMISSION.editPost), jsonBody(), async (ctx) => {
    const { version } = parse(RevertBody, requestBody(ctx));
    ctx.body = toPostView(await deps.history.revert(ctx.params.id, version, currentUser(ctx)), deps.config.mediaUrl);
  });

  return router;
}
