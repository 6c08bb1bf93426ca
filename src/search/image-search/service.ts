import { imageSearchItem } from '../../kernel/views.ts';
import type { SearchDeps } from '../page-of-posts.ts';
import { findQueryPage } from '../query/run.ts';
import { facetAggregations, readFacets } from './facets.ts';
import { buildImageSort, conditionsQuery, requiredTags } from './query.ts';
import type { ImageSearchResult } from './result-shapes.ts';
import type { ImageSearchRequest } from './schemas.ts';

export type { ImageSearchResult } from './result-shapes.ts';

/**
 * `/image/search` (docs/decisions.md §7): the engine finds the page of post numbers, SQLite (the
 * source of truth) gives the posts in the same order; a post deleted in between drops out.
 */
export interface ImageSearchDeps extends SearchDeps {
  /** a username's id (favoritedBy names a user; the index keeps ids, which survive a rename) */
  userIdOf: (name: string) => number | undefined;
}

export class ImageSearchService {
  constructor(private readonly deps: ImageSearchDeps) {}

  async search(asked: ImageSearchRequest, paging: { offset: number; limit: number }): Promise<ImageSearchResult> {
    const { postRepository, config } = this.deps;
    // A tag condition naming an alias means its target (docs/decisions.md §15); the facets' exclusion of
    // tagInclude names then leaves out the target, as it would had the target been named.
    // favoritedBy names a user: the index keeps ids (docs/decisions.md §14).
    const rules = postRepository.tagRules;
    const conditions = asked.conditions.map((c) =>
      c.type === 'tagInclude' || c.type === 'tagExclude' || c.type === 'tagAny'
        ? { ...c, value: rules.canonical(c.value) }
        : c.type === 'favoritedBy' || c.type === 'commentedBy'
          ? { ...c, userId: this.deps.userIdOf(c.value) }
          : c.type === 'childOf' && c.parentSeq === undefined
            ? { ...c, parentSeq: postRepository.links.seqsOfIds([c.value]).get(c.value) }
            : c,
    );
    const request = { ...asked, conditions };
    const page = await findQueryPage(this.deps, conditionsQuery(request.conditions), {
      sort: buildImageSort(request),
      ...paging,
      totalBound: config.searchTotalBound,
      ...(request.facets?.length
        ? {
            aggs: facetAggregations(
              request.facets,
              requiredTags(request.conditions).map((t) => rules.canonical(t)),
            ),
          }
        : {}),
    });
    const images = postRepository
      .imageItemsBySeq(page.keys.map(Number))
      .map((p) => imageSearchItem(p, config.mediaUrl));
    return {
      total: page.total,
      ...(page.totalIsEstimate ? { totalIsEstimate: true } : {}),
      images,
      ...(request.facets ? { facets: readFacets(request.facets, page.aggregations) } : {}),
    };
  }
}
