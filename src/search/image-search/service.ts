import { toImageSearchImage, type ImageSearchImage } from '../../kernel/views.ts';
import { findPage, type SearchDeps } from '../page-of-posts.ts';
import { facetAggregations, readFacets, type Facets } from './facets.ts';
import { buildImageQuery, buildImageSort } from './query.ts';
import type { ImageSearchRequest } from './schema.ts';

export interface ImageSearchResult {
  total: number;
  images: ImageSearchImage[];
  /** only when the request named facets */
  facets?: Facets;
}

/**
 * `/image/search` (spec §4.11, decisions §7): the engine finds the page of post numbers, SQLite (the
 * source of truth) gives the posts in the same order; a post deleted in between drops out.
 */
export class ImageSearchService {
  constructor(private readonly deps: SearchDeps) {}

  async search(request: ImageSearchRequest, paging: { offset: number; limit: number }): Promise<ImageSearchResult> {
    const { postRepository, config } = this.deps;
    const needles = request.conditions.flatMap((c) => (c.type === 'textContains' ? [c.value] : []));
    const page = await findPage(this.deps, needles, (resolved) => ({
      query: buildImageQuery(request.conditions, resolved),
      sort: buildImageSort(request),
      ...paging,
      ...(request.facets?.length ? { aggs: facetAggregations(request.facets, request.conditions) } : {}),
    }));
    const images = postRepository.getManyBySeq(page.keys.map(Number)).map((p) => toImageSearchImage(p, config.mediaUrl));
    return { total: page.total, images, ...(request.facets ? { facets: readFacets(request.facets, page.aggregations) } : {}) };
  }
}
