import { findPage, type SearchDeps } from '../page-of-posts.ts';
import type { Page, PageRequest } from '../engine.ts';
import type { Clause } from '../clauses.ts';
import { compileQuery, needlesOf } from './compile.ts';
import type { Query } from './model.ts';
import { postsResolver } from './posts-resolver.ts';
import { resolveQuery } from './resolve.ts';

/**
 * One page of a query's matches: its names resolved against SQLite, long needles resolved, the
 * query compiled (compile.ts, the one compiler) and run with the caller's sort, paging and aggregations.
 */
export function findQueryPage(
  deps: SearchDeps & { userIdOf?: (name: string) => number | undefined },
  asked: Query,
  rest: Omit<PageRequest, 'index' | 'query'>,
  /** wraps the compiled query (a random order's scoring) */
  wrap: (clause: Clause) => Clause = (c) => c,
): Promise<Page> {
  const query = resolveQuery(asked, postsResolver(deps.postRepository, deps.userIdOf ?? (() => undefined)));
  return findPage(deps, needlesOf(query), (resolved) => ({ query: wrap(compileQuery(query, resolved)), ...rest }));
}
