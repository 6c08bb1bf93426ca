import Router from '@koa/router';
import { invalid } from '../../errors.ts';
import type { AppState } from '../../http/context.ts';
import { parse } from '../../http/validate.ts';
import { multipart, partsOf } from '../../http/multipart.ts';
import { postQuery, query } from './schemas.ts';
import type { SimilarService } from './service.ts';

/**
 * POST /api/post/similar (docs/decisions.md §5, §16) and GET /api/post/{id}/similar (docs/decisions.md §16). Public, as
 * reading a post is.
 */
export function similarRoutes(deps: { similar: SimilarService; tmpDir: string }): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/post/similar', multipart(deps.tmpDir, ['image']), async (ctx) => {
    const params = parse(query, ctx.query);
    const file = partsOf(ctx).files.image;
    if (!file) throw invalid(['image'], 'the image part is required', 'invalid_type', 'file', 'undefined');
    ctx.body = await deps.similar.find(file.path, params);
  });
  router.get('/api/post/:id/similar', async (ctx) => {
    const params = parse(postQuery, ctx.query);
    ctx.body = await deps.similar.findForPost(ctx.params.id, params);
  });
  return router;
}
