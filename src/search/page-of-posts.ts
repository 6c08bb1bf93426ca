import type { Config } from '../config.ts';
import type { EsClient } from '../elasticsearch/client.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { NeedleMatches } from './clauses.ts';
import { searchPage, translateEsError, type Page, type PageRequest } from './engine.ts';
import { resolveLongNeedles } from './long-needles.ts';

/**
 * What every search service reads: the engine finds the posts, SQLite (the source of truth) gives
 * them, in the engine's order; a post deleted in between drops out.
 */
export interface SearchDeps {
  es: EsClient;
  postsIndex: PostsIndex;
  postRepository: PostRepository;
  /**
   * read per search: tests (and proxies) set mediaUrl after start-up; `totalBound` (docs/decisions.md §24) absent
   * means exact totals
   */
  config: Pick<Config, 'mediaUrl'> & { searchTotalBound?: number };
}

/**
 * One page of the engine's answer to a search: long substring needles are resolved first
 * (long-needles.ts) and `build` makes the query, sort, paging and aggregations on their matches.
 * Elasticsearch being down is a 503.
 */
export async function findPage(
  deps: Pick<SearchDeps, 'es' | 'postsIndex'>,
  needles: string[],
  build: (resolved: NeedleMatches) => Omit<PageRequest, 'index'>,
): Promise<Page> {
  const resolved = await resolveLongNeedles(deps.es, deps.postsIndex.alias, needles).catch(translateEsError);
  return searchPage(deps.es, { index: deps.postsIndex.alias, ...build(resolved) });
}
