import Router from '@koa/router';
import { jsonBody, requestBody } from '../../http/body.ts';
import type { AppState } from '../../http/context.ts';
import { messageErrors } from '../../http/errors.ts';
import { fastParseImageSearch } from './fast-parse.ts';
import { parseImageSearch } from './schemas.ts';
import type { ImageSearchService } from './service.ts';

/** POST /image/search (docs/decisions.md §7). Public. */
export function imageSearchRoutes(deps: { imageSearch: ImageSearchService }): Router<AppState> {
  const router = new Router<AppState>();
  // This endpoint answers every error as `{ error }` with the status, unlike the issue arrays elsewhere.
  router.post('/image/search', messageErrors(), jsonBody(), async (ctx) => {
    const { request, offset, limit } =
      fastParseImageSearch(requestBody(ctx), ctx.query) ?? parseImageSearch(requestBody(ctx), ctx.query);
    ctx.body = { error: null, data: await deps.imageSearch.search(request, { offset, limit }) };
  });
  return router;
}
