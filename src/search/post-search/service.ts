import { toPostView, type PostView } from '../../kernel/views.ts';
import type { SearchDeps } from '../page-of-posts.ts';
import { findQueryPage } from '../query/run.ts';
import { buildSort, selectorsQuery } from './query.ts';
import type { SearchRequest } from './schemas.ts';

/** `/api/post/search` (docs/decisions.md §6). */
export class PostSearchService {
  constructor(private readonly deps: SearchDeps) {}

  /**
   * Runs a parsed search. Elasticsearch answers with ids only; the posts are read from SQLite (the
   * source of truth) in the same order. A post deleted between the two steps drops out of the page.
   */
  async search(
    asked: SearchRequest,
    paging: { offset: number; limit: number },
  ): Promise<{ count: number; countIsEstimate?: boolean; data: PostView[] }> {
    const { postRepository, config } = this.deps;
    // A tag selector naming an alias means its target (docs/decisions.md §15).
    const filter = asked.filter.map((s) =>
      s.type === 'tag' ? { ...s, value: postRepository.tagRules.canonical(s.value) } : s,
    );
    const request = { ...asked, filter };
    const page = await findQueryPage(this.deps, selectorsQuery(request.filter), {
      sort: buildSort(request.order),
      ...paging,
      totalBound: config.searchTotalBound,
    });
    const posts = postRepository.getManyById(page.keys.map(String));
    return {
      count: page.total,
      ...(page.totalIsEstimate ? { countIsEstimate: true } : {}),
      data: posts.map((p) => toPostView(p, config.mediaUrl)),
    };
  }
}
