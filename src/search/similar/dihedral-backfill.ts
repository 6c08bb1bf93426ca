/**
 * Computes the eight symmetries' hashes (docs/decisions.md §24) of posts from before migration 025 (uploads
 * compute them before their insert). `posts.dihedral IS NULL` is the durable cursor: the runner takes those
 * posts in post-number order, a batch at a time, each stored on its own, so a kill loses nothing and the next
 * start resumes at the first NULL. Its hash tasks wait behind every upload's (`background`). A moving
 * picture, a file that is gone or one that no longer decodes gets the empty set (its own hash stands for
 * all); a store that does not answer is retried at the next poll.
 */
import { imageName } from '../../kernel/media-names.ts';
import type { PostRepository } from '../../kernel/post-repository.ts';
import type { HashPool } from '../../hashing/pool.ts';
import type { Logger } from '../../log.ts';
import type { ImageStore } from '../../media-store/image-store.ts';
import { AppError } from '../../errors.ts';
import { Loop } from '../../util/loop.ts';

const BATCH = 50;
const IDLE_POLL_MS = 60_000;

export class DihedralBackfill {
  readonly loop: Loop;
  private cursor = 0;
  private stopping = false;
  readonly stats = { stored: 0, none: 0 };

  constructor(
    private readonly deps: {
      posts: PostRepository;
      images: ImageStore;
      hashPool: Pick<HashPool, 'analyse'>;
      log: Logger;
    },
  ) {
    this.loop = new Loop({
      pass: () => this.pass(),
      intervalMs: IDLE_POLL_MS,
      firstDelayMs: 0,
      backoffMs: (failures) => Math.min(60_000, 500 * 2 ** Math.min(failures, 7)),
      log: deps.log,
      failureMessage: 'dihedral hashes backfill: a pass failed; retrying',
      logEveryFailures: 10,
    });
  }

  /** One batch; 0 (go on at once) while there is more. */
  async pass(): Promise<number | void> {
    const { posts, images, hashPool } = this.deps;
    const batch = posts.dihedral.pending(this.cursor, BATCH);
    if (batch.length === 0) {
      this.cursor = 0;
      return;
    }
    for (const p of batch) {
      if (this.stopping) break;
      if (p.mediaKind !== 'image') {
        if (posts.dihedral.set(p.seq, undefined)) this.stats.none++;
      } else {
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
      this.cursor = p.seq;
    }
    return 0;
  }

  start(): void {
    this.stopping = false;
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }

  /** Runs passes until no post is left, the loop stopped (tests, jobs). */
  async runToEnd(): Promise<void> {
    this.cursor = 0;
    this.stopping = false;
    while ((await this.pass()) === 0);
  }
}
