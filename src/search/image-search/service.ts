import { imageUrl, SMALL_THUMBNAIL, thumbnailUrl } from '../../kernel/media-names.ts';
import { findPage, type SearchDeps } from '../page-of-posts.ts';
import { facetAggregations, readFacets, type Facets } from './facets.ts';
import { buildImageQuery, buildImageSort } from './query.ts';
import type { ImageSearchRequest } from './schema.ts';

export interface ImageSearchImage {
  text: string;
  rating: string;
  id: number;
  imageUrl: string;
  /** the 320 px WebP thumbnail */
  thumbnailUrl: string;
  tags: string[];
}

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
    const images: ImageSearchImage[] = postRepository.getManyBySeq(page.keys.map(Number)).map((p) => ({
      text: p.text,
      rating: p.rating,
      id: p.seq,
      imageUrl: imageUrl(config.mediaUrl, p),
      thumbnailUrl: thumbnailUrl(config.mediaUrl, p.id, SMALL_THUMBNAIL),
      tags: p.tags.map((t) => t.name),
    }));
    return { total: page.total, images, ...(request.facets ? { facets: readFacets(request.facets, page.aggregations) } : {}) };
  }
}
