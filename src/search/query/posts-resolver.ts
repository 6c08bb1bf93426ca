import type { PostRepository } from '../../kernel/post-repository.ts';
import type { QueryResolver } from './resolve.ts';

/** Names in a query resolved against SQLite through the post kernel (docs/decisions.md §20). */
export function postsResolver(posts: PostRepository, userIdOf: (name: string) => number | undefined): QueryResolver {
  return {
    canonical: (name) => posts.tagRules.canonical(name),
    tagsByPrefix: (prefix, limit) => posts.tagRules.mostUsedByPrefix(prefix, limit),
    userIdOf,
    seqsByMd5: (md5) => posts.files.seqsByMd5(md5),
  };
}
