/**
 * Fills in the stored file's MD5 and size (docs/decisions.md §20) of posts from before migration 020
 * (uploads compute them before their insert). `posts.md5 IS NULL` is the durable cursor: the runner
 * takes those posts in post-number order, a batch at a time, each stored on its own, so a kill loses
 * nothing and the next start resumes at the first NULL. A file that is really gone (seeded posts have
 * none) is recorded as the empty MD5 (shown as null); a store that does not answer is retried later.
 * MD5 and size are no part of the post record (no version, no index change).
 */
import type { PostRepository } from '../kernel/post-repository.ts';
import { imageName } from '../kernel/media-names.ts';
import type { Logger } from '../log.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import { fileMd5 } from '../util/file-md5.ts';
import { Loop } from '../util/loop.ts';

const BATCH = 100;
const IDLE_POLL_MS = 60_000;

export class FileFactsRunner {
  readonly loop: Loop;
  private cursor = 0;
  readonly stats = { stored: 0, missing: 0 };

  constructor(private readonly deps: { posts: PostRepository; images: ImageStore; log: Logger }) {
    this.loop = new Loop({
      pass: () => this.pass(),
      intervalMs: IDLE_POLL_MS,
      firstDelayMs: 0,
      backoffMs: (failures) => Math.min(60_000, 500 * 2 ** Math.min(failures, 7)),
      log: deps.log,
      failureMessage: 'file facts backfill: a pass failed; retrying',
      logEveryFailures: 10,
    });
  }

  private stopping = false;

  /** One batch; 0 (go on at once) while there is more. */
  async pass(): Promise<number | void> {
    const { posts, images } = this.deps;
    const batch = posts.files.missing(this.cursor, BATCH);
    if (batch.length === 0) {
      this.cursor = 0;
      return;
    }
    for (const p of batch) {
      if (this.stopping) break;
      const image = imageName(p);
      try {
        const facts = await images.withLocalFile(image, (file) => fileMd5(file));
        if (posts.files.set(p.seq, facts.md5, facts.size)) this.stats.stored++;
      } catch (err) {
        if (await images.exists(image).catch(() => true)) {
          // The store did not answer: passed over until the next poll.
          this.deps.log.warn('file facts backfill: passing over a post', { postId: p.id, err: (err as Error).message });
        } else if (posts.files.set(p.seq, '', 0)) this.stats.missing++;
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

  /** Runs passes until no post is left (`imgpost verify --repair`, tests). */
  async runToEnd(): Promise<void> {
    this.cursor = 0;
    while ((await this.pass()) === 0);
  }
}
