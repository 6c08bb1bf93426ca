import type { Config } from '../../config.ts';
import type { EsClient } from '../../elasticsearch/client.ts';
import type { PostsIndex } from '../../elasticsearch/posts-index.ts';
import { toPostView, type PostView } from '../../posts/post-view.ts';
import type { PostRepository } from '../../posts/repository.ts';
import { searchPage, translateEsError } from '../engine.ts';
import { resolveLongNeedles } from '../long-needles.ts';
import { buildQuery, buildSort } from './query.ts';
import type { SearchRequest } from './schema.ts';

export interface PostSearchDeps {
  es: EsClient;
  postsIndex: PostsIndex;
  postRepository: PostRepository;
  /** read per search: tests (and proxies) set mediaUrl after start-up */
  config: Pick<Config, 'mediaUrl'>;
}

/** `/api/post/search` (spec §4.9, decisions §6). */
export class PostSearchService {
  constructor(private readonly deps: PostSearchDeps) {}

  /**
   * Runs a parsed search. Elasticsearch answers with ids only; the posts are read from SQLite (the
   * source of truth) in the same order. A post deleted between the two steps drops out of the page.
   */
  async search(request: SearchRequest, paging: { offset: number; limit: number }): Promise<{ count: number; data: PostView[] }> {
    const { es, postsIndex, postRepository, config } = this.deps;
    const needles = request.filter.flatMap((s) => (s.type === 'text' ? [s.value] : []));
    const resolved = await resolveLongNeedles(es, postsIndex.alias, needles).catch(translateEsError);
    const page = await searchPage(es, {
      index: postsIndex.alias,
      query: buildQuery(request.filter, resolved),
      sort: buildSort(request.order),
      ...paging,
    });
    const posts = postRepository.getManyById(page.keys.map(String));
    return { count: page.total, data: posts.map((p) => toPostView(p, config.mediaUrl)) };
  }
}
