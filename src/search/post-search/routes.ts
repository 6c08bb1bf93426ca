import Router from '@koa/router';
import { jsonBody, requestBody } from '../../http/body.ts';
import type { AppState } from '../../http/context.ts';
import { parseListPaging } from '../paging-params.ts';
import { parseSearchBody } from './schemas.ts';
import type { PostSearchService } from './service.ts';

/** POST /api/post/search (docs/decisions.md §6). Public. */
export function postSearchRoutes(deps: { postSearch: PostSearchService }): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/post/search', jsonBody(), async (ctx) => {
    const paging = parseListPaging(ctx.query);
    const request = parseSearchBody(requestBody(ctx));
    ctx.body = await deps.postSearch.search(request, paging);
  });
  return router;
}
