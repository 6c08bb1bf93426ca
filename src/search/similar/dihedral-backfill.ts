/**
 * Computes the eight symmetries' hashes (docs/decisions.md §24) of posts from before migration 025 (uploads
 * compute them before their insert), `posts.dihedral IS NULL` its cursor (src/util/cursor-backfill.ts). Its
 * hash tasks wait behind every upload's (`background`). A moving picture, a file that is gone or one that
 * no longer decodes gets the empty set (its own hash stands for all); a store that does not answer is
 * retried at the next poll.
 */
import { imageName } from '../../kernel/media-names.ts';
import type { PostRepository } from '../../kernel/post-repository.ts';
import type { HashPool } from '../../hashing/pool.ts';
import type { Logger } from '../../log.ts';
import type { ImageStore } from '../../media-store/image-store.ts';
import { AppError } from '../../errors.ts';
import { CursorBackfill } from '../../util/cursor-backfill.ts';

type Pending = ReturnType<PostRepository['dihedral']['pending']>[number];

export class DihedralBackfill extends CursorBackfill<Pending> {
  readonly stats = { stored: 0, none: 0 };

  constructor(
    private readonly deps: {
      posts: PostRepository;
      images: ImageStore;
      hashPool: Pick<HashPool, 'analyse'>;
      log: Logger;
    },
  ) {
    super({ name: 'dihedral hashes backfill', batch: 50, log: deps.log });
  }

  protected pending(after: number, limit: number): Pending[] {
    return this.deps.posts.dihedral.pending(after, limit);
  }

  protected async visit(p: Pending): Promise<void> {
    const { posts, images, hashPool } = this.deps;
    if (p.mediaKind !== 'image') {
      if (posts.dihedral.set(p.seq, undefined)) this.stats.none++;
      return;
    }
    const image = imageName(p);
    try {
      const info = await images.withLocalFile(image, (file) =>
        hashPool.analyse(file, { dihedral: true, priority: 'background' }),
      );
      if (posts.dihedral.set(p.seq, info.dihedral)) this.stats.stored++;
    } catch (err) {
      const refused = err instanceof AppError && err.code === 'validation';
      if (refused || !(await images.exists(image).catch(() => true))) {
        if (posts.dihedral.set(p.seq, undefined)) this.stats.none++;
      } else {
        // The store or the pool did not answer: passed over until the next poll.
        this.deps.log.warn('dihedral hashes backfill: passing over a post', {
          postId: p.id,
          err: (err as Error).message,
        });
      }
    }
  }
}
