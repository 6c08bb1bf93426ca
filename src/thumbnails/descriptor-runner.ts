/**
 * Computes the robust descriptor (docs/decisions.md §16) of every post that has none: each new post after
 * its upload was answered (the upload kicks the runner; the 409 rule needs only the 64-bit hash),
 * and the posts from before migration 013 (the backfill). One loop does both, because "no
 * descriptor yet" is durable state: posts.robust IS NULL. The runner takes them in post-number
 * order and stores each one in its own transaction, so a kill -9 loses at most the descriptor being
 * computed, and the next start resumes at the first NULL. Work runs on the hash pool at background
 * priority, and waits while an upload's hash is queued.
 *
 * A new post's descriptor usually comes with its thumbnails (the thumbnailer asks for it while the
 * post has none, and hands it to `storeComputed`): the two share one decode. So the runner passes
 * over a post whose thumbnail job will still run; if that job ends without a descriptor (or is given
 * up), the next poll finds the post still NULL.
 */
import type { HashPool } from '../hashing/pool.ts';
import type { RobustResult } from '../hashing/tasks.ts';
import { encodeDescriptor, UNREADABLE } from '../robust/format.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { imageName } from '../kernel/media-names.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { PendingDescriptor } from '../robust/descriptor-table.ts';
import type { Logger } from '../log.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import { Loop } from '../util/loop.ts';

export interface DescriptorRunnerDeps {
  posts: PostRepository;
  /** each descriptor is stored as one unit of work, its 'reindex' row joining the relay's next pass */
  unitOfWork: UnitOfWork;
  images: ImageStore;
  hashPool: HashPool;
  log: Logger;
  /** ROBUST_PAUSE_MS: a pause after each descriptor, to leave the CPU to other work (default 0) */
  pauseMs?: number;
  /**
   * whether the post's thumbnail job will still run (given when a thumbnailer runs those jobs: it brings the
   * descriptor)
   */
  thumbnailsWillRun?: (postId: string) => boolean;
}

const BATCH = 50;
/** The safety-net poll: posts that arrived without a kick (imports), and posts skipped after failures. */
const IDLE_POLL_MS = 30_000;
/**
 * A post whose image keeps failing (not missing: the store is unreachable, say) is passed over after this many tries in
 * a run.
 */
const TRIES = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DescriptorRunner {
  /** the server starts and stops it; an upload kicks it (a new post's descriptor soon) */
  readonly loop: Loop;
  /** posts up to this number were done or passed over in this run */
  private cursor = 0;
  private failing = { seq: 0, tries: 0 };
  readonly stats = { stored: 0, unreadable: 0 };

  constructor(private readonly deps: DescriptorRunnerDeps) {
    this.loop = new Loop({
      pass: () => this.pass(),
      intervalMs: IDLE_POLL_MS,
      backoffMs: (failures) => Math.min(60_000, 500 * 2 ** Math.min(failures, 7)),
      log: deps.log,
      failureMessage: 'robust descriptors: a pass failed; retrying',
      logEveryFailures: 10,
    });
  }

  /** New posts wait for their descriptor: run soon. */
  kick(): void {
    this.loop.kick();
  }

  /** One batch in post-number order; answers 0 (go on at once) while there is more. */
  private async pass(): Promise<number | void> {
    const { posts, hashPool } = this.deps;
    const batch = posts.robust.pending(this.cursor, BATCH);
    if (batch.length === 0) {
      // Passed-over posts are tried again on the next poll.
      this.cursor = 0;
      return;
    }
    for (const p of batch) {
      if (!this.loop.running) break;
      // Uploads first: someone waits for their hash, nobody for a descriptor.
      while (hashPool.queueSize > 0 && this.loop.running) await sleep(50);
      if (!this.loop.running) break;
      if (this.deps.thumbnailsWillRun?.(p.id)) {
        this.cursor = p.seq;
        continue;
      }
      try {
        await this.storeOne(p);
        this.cursor = p.seq;
      } catch (err) {
        if (this.failing.seq !== p.seq) this.failing = { seq: p.seq, tries: 0 };
        if (++this.failing.tries < TRIES) throw err;
        this.deps.log.warn('robust descriptors: passing over a post until the next poll', {
          postId: p.id,
          err: (err as Error).message,
        });
        this.cursor = p.seq;
      }
      if (this.deps.pauseMs) await sleep(this.deps.pauseMs);
    }
    return 0;
  }

  /** Computes and stores one post's descriptor; false when the post went or already has one. */
  private async storeOne(p: PendingDescriptor): Promise<boolean> {
    const { posts, images, hashPool } = this.deps;
    // Its thumbnails may have brought it since the batch was read (their job is done only after).
    if (!posts.robust.pendingPost(p.id)) return false;
    const image = imageName(p);
    let descriptor;
    try {
      descriptor = await images.withLocalFile(image, (file) => hashPool.robust(file, 'background'));
    } catch (err) {
      if (!posts.exists(p.id)) return false;
      // Only a file that is really gone is stored as unreadable; a store that does not answer is retried.
      if (await images.exists(image)) throw err;
      descriptor = UNREADABLE;
      this.stats.unreadable++;
    }
    return this.save(p.seq, descriptor);
  }

  /** Whether the post still waits for its descriptor (the thumbnailer asks before its task). */
  wants(postId: string): boolean {
    return this.deps.posts.robust.pendingPost(postId) !== undefined;
  }

  /** Stores a descriptor computed with the post's thumbnails; false when the post went or already has one. */
  storeComputed(postId: string, descriptor: RobustResult): boolean {
    const p = this.deps.posts.robust.pendingPost(postId);
    return p !== undefined && this.save(p.seq, descriptor);
  }

  /** One unit of work: the descriptor, and the post's reindex so its document gains the terms. */
  private save(seq: number, descriptor: RobustResult): boolean {
    const { unitOfWork, posts } = this.deps;
    const blob = encodeDescriptor(descriptor);
    const done = unitOfWork.writeInBackground((tx) => {
      if (!posts.robust.store(seq, blob)) return false;
      const post = posts.getBySeq(seq);
      if (post) tx.reindexed(post);
      return true;
    });
    if (done) this.stats.stored++;
    return done;
  }
}
