import type { Db } from '../../db/sqlite.ts';
import type { PostRecord } from '../../kernel/post-record.ts';
import type { PostRepository } from '../../kernel/post-repository.ts';
import type { PostService } from '../service.ts';

/** A parent's children (docs/decisions.md §19), in post-number order. */
export class PostChildren {
  constructor(private readonly deps: { db: Db; posts: PostRepository; postService: PostService }) {}

  list(ref: string, offset: number, limit: number): { count: number; posts: PostRecord[] } {
    const { db, posts, postService } = this.deps;
    // One read transaction: the page and the count see the same writes.
    return db.transaction(() => {
      const parent = postService.find(ref);
      const seqs = limit === 0 ? [] : posts.links.childSeqs(parent.seq, offset, limit);
      return { count: posts.links.childCount(parent.seq), posts: posts.getManyBySeq(seqs) };
    })();
  }
}
