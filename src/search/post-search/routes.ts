import Router from '@koa/router';
import type { Services } from '../../roles/server.ts';
import { jsonBody, requestBody } from '../../http/body.ts';
import type { AppState } from '../../http/context.ts';
import { toPostView, type PostView } from '../../posts/post-view.ts';
import { searchPage, translateEsError } from '../engine.ts';
import { resolveLongNeedles } from '../long-needles.ts';
import { parseListPaging } from '../paging-params.ts';
import { buildQuery, buildSort } from './query.ts';
import { parseSearchBody, type SearchRequest } from './schema.ts';

type Deps = Pick<Services, 'es' | 'postsIndex' | 'postRepository' | 'config'>;

/**
 * Runs a parsed search. Elasticsearch answers with ids only; the posts are read from SQLite (the
 * source of truth) in the same order. A post deleted between the two steps drops out of the page.
 */
export async function searchPosts(
  deps: Deps,
  request: SearchRequest,
  paging: { offset: number; limit: number },
): Promise<{ count: number; data: PostView[] }> {
  const needles = request.filter.flatMap((s) => (s.type === 'text' ? [s.value] : []));
  const resolved = await resolveLongNeedles(deps.es, deps.postsIndex.alias, needles).catch(translateEsError);
  const page = await searchPage(deps.es, {
    index: deps.postsIndex.alias,
    query: buildQuery(request.filter, resolved),
    sort: buildSort(request.order),
    ...paging,
  });
  const posts = deps.postRepository.getManyById(page.keys.map(String));
  return { count: page.total, data: posts.map((p) => toPostView(p, deps.config.mediaUrl)) };
}

/** POST /api/post/search (spec §4.9). Public. */
export function postSearchRoutes(deps: Deps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/post/search', jsonBody(), async (ctx) => {
    const paging = parseListPaging(ctx.query);
    const request = parseSearchBody(requestBody(ctx));
    ctx.body = await searchPosts(deps, request, paging);
  });
  return router;
}
