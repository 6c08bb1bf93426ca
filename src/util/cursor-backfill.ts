/**
 * A backfill of posts from before some column existed, its durable cursor the column still NULL: the
 * runner takes those posts in post-number order, a batch at a time, each stored on its own, so a kill
 * loses nothing and the next start resumes at the first NULL. A subclass says which posts are pending
 * and what to do with one; this holds the walk, the loop and stopping.
 */
import type { Logger } from '../log.ts';
import { Loop } from './loop.ts';

const IDLE_POLL_MS = 60_000;

export abstract class CursorBackfill<P extends { seq: number }> {
  readonly loop: Loop;
  private cursor = 0;
  private stopping = false;

  constructor(private readonly walk: { name: string; batch: number; log: Logger }) {
    this.loop = new Loop({
      pass: () => this.pass(),
      intervalMs: IDLE_POLL_MS,
      firstDelayMs: 0,
      backoffMs: (failures) => Math.min(60_000, 500 * 2 ** Math.min(failures, 7)),
      log: walk.log,
      failureMessage: `${walk.name}: a pass failed; retrying`,
      logEveryFailures: 10,
    });
  }

  /** Up to `limit` posts still pending with a number above `after`, in number order. */
  protected abstract pending(after: number, limit: number): P[];

  /** Stores what the post lacks; a post it cannot do now stays pending for the next poll. */
  protected abstract visit(post: P): Promise<void>;

  /** One batch; 0 (go on at once) while there is more. */
  async pass(): Promise<number | void> {
    const batch = this.pending(this.cursor, this.walk.batch);
    if (batch.length === 0) {
      this.cursor = 0;
      return;
    }
    for (const p of batch) {
      if (this.stopping) break;
      await this.visit(p);
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
    this.stopping = false;
    while ((await this.pass()) === 0);
  }
}
