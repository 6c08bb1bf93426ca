import Router from '@koa/router';
import type { Services } from '../../roles/server.ts';
import { AppError } from '../../errors.ts';
import { jsonBody, requestBody } from '../../http/body.ts';
import type { AppState } from '../../http/context.ts';
import { imageUrl, thumbnailUrl } from '../../kernel/media-names.ts';
import { SMALL_THUMBNAIL } from '../../kernel/media-names.ts';
import { searchPage, translateEsError } from '../engine.ts';
import { resolveLongNeedles } from '../long-needles.ts';
import { facetAggregations, readFacets } from './facets.ts';
import { buildImageQuery, buildImageSort } from './query.ts';
import { issueMessage, parseImageSearch } from './schema.ts';

type Deps = Pick<Services, 'es' | 'postsIndex' | 'postRepository' | 'config'>;

export interface ImageSearchImage {
  text: string;
  rating: string;
  id: number;
  imageUrl: string;
  /** the 320 px WebP thumbnail */
  thumbnailUrl: string;
  tags: string[];
}

/** POST /image/search (spec §4.11, decisions §7). Public. */
export function imageSearchRoutes(deps: Deps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/image/search', async (ctx, next) => {
    // This endpoint answers every error as `{ error }` with the status, unlike the issue arrays elsewhere.
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const status: Partial<Record<AppError['code'], number>> = { validation: 400, too_large: 413, unavailable: 503, unauthenticated: 401 };
      if (status[err.code] === undefined) throw err;
      ctx.status = status[err.code]!;
      ctx.body = { error: err.code === 'validation' ? issueMessage(err) : err.message };
    }
  }, jsonBody(), async (ctx) => {
    const { request, offset, limit } = parseImageSearch(requestBody(ctx), ctx.query);
    const needles = request.conditions.flatMap((c) => (c.type === 'textContains' ? [c.value] : []));
    const resolved = await resolveLongNeedles(deps.es, deps.postsIndex.alias, needles).catch(translateEsError);
    const page = await searchPage(deps.es, {
      index: deps.postsIndex.alias,
      query: buildImageQuery(request.conditions, resolved),
      sort: buildImageSort(request),
      offset,
      limit,
      ...(request.facets?.length ? { aggs: facetAggregations(request.facets, request.conditions) } : {}),
    });
    const images: ImageSearchImage[] = deps.postRepository.getManyBySeq(page.keys.map(Number)).map((p) => ({
      text: p.text,
      rating: p.rating,
      id: p.seq,
      imageUrl: imageUrl(deps.config.mediaUrl, p),
      thumbnailUrl: thumbnailUrl(deps.config.mediaUrl, p.id, SMALL_THUMBNAIL),
      tags: p.tags.map((t) => t.name),
    }));
    const facets = request.facets ? { facets: readFacets(request.facets, page.aggregations) } : {};
    ctx.body = { error: null, data: { total: page.total, images, ...facets } };
  });
  return router;
}
