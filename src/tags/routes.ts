import Router from '@koa/router';
import type { AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { TagListQuery } from './schemas.ts';
import type { TagService } from './service.ts';

/** GET /api/tag (prefix autocomplete) and GET /api/tag/[name], both public (decisions §10). */
export function tagRoutes(deps: { tags: TagService }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/tag' });

  router.get('/', (ctx) => {
    const q = parse(TagListQuery, ctx.query);
    ctx.body = deps.tags.list(q.prefix, q.offset, q.limit);
  });

  router.get('/:name', (ctx) => {
    ctx.body = deps.tags.get(ctx.params.name);
  });

  return router;
}
