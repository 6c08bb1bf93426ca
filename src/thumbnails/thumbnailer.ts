/**
 * The thumbnails' home: the thumbnailer loop (this file), `rethumb` (rethumb.ts) and the robust
 * descriptor runner, which rides on the thumbnails' decode (descriptor-runner.ts).
 *
 * Two pieces live lower down, on purpose. The job table (src/kernel/thumbnail-jobs.ts) stays in the
 * kernel because every post write queues its job inside the unit of work's one transaction: the
 * kernel writes it, so the kernel owns its SQL, and this folder only claims and settles jobs through
 * the `ThumbnailQueue` it is handed. The file names (src/kernel/media-names.ts) are the kernel's
 * because a post write names its files. The resize itself is a task of the hash worker pool
 * (src/hashing/tasks.ts, workers/hash-worker.ts), which runs hashes, thumbnails and descriptors on
 * one decode off the event loop; splitting the worker by feature would decode each upload twice.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HashPool } from '../hashing/pool.ts';
import type { RobustResult } from '../hashing/tasks.ts';
import type { PoolPriority } from '../hashing/priority-queue.ts';
import type { Logger } from '../log.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import { imageName, THUMBNAIL_SIZES, thumbnailName } from '../kernel/media-names.ts';
import { Loop } from '../util/loop.ts';

export interface ThumbnailerDeps {
  images: ImageStore;
  hashPool: HashPool;
  queue: ThumbnailQueue;
  posts: PostRepository;
  log: Logger;
  /** background jobs at once; one worker is always left to hashing (default 1) */
  parallel?: number;
  /** a post still without a robust descriptor gets it from its thumbnails' decode (descriptor-runner.ts) */
  descriptors?: { wants(postId: string): boolean; storeComputed(postId: string, descriptor: RobustResult): boolean };
  /**
   * docs/decisions.md §21: an animation's or a video's thumbnails are of its poster frame, which this
   * cuts from the stored file into a still one (a still image's file is passed on as it is)
   */
  posters?: { withPoster<T>(postId: string, file: string, use: (still: string) => Promise<T>): Promise<T> };
}

const LEASE_MS = 5 * 60_000;

/**
 * Whether the process behind a claimant id (`<pid>-<random>`, see Thumbnailer) has gone. DATA_DIR is
 * local to one machine (it holds the owner lock), so its claimants are this machine's processes.
 */
export function claimantGone(claimant: string): boolean {
  const pid = Number(claimant.split('-')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
const IDLE_POLL_MS = 2_000;
/** The longest a queued job waits for the hashes queued in the pool before it is handed to the pool anyway. */
const HASHES_FIRST_MS = 1_000;
/** A thumbnail file name: `<uuid>.<size>.webp`. */
const THUMBNAIL_FILE = /^([0-9a-f-]{36})\.(\d+)\.webp$/;

/**
 * Makes a post's thumbnails when its upload did not (with-upload.ts makes them before the answer;
 * jobs still queue for posts written otherwise, and from before that), from three places: the
 * server's background runner (queued jobs, at background priority), a request for a thumbnail that
 * does not exist yet (at once, urgent), and the jobs that regenerate them. Work on one post in one
 * process is shared, so a burst of requests for a post's missing thumbnails makes them once.
 */
export class Thumbnailer {
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly claimant = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  private readonly loop: Loop;

  constructor(private readonly deps: ThumbnailerDeps) {
    this.loop = new Loop({
      // `parallel` drains side by side; the pass ends when the queue has nothing due.
      pass: async () => {
        await Promise.all(Array.from({ length: Math.max(1, deps.parallel ?? 1) }, () => this.drain()));
      },
      intervalMs: IDLE_POLL_MS,
      log: deps.log,
      // drain() handles its own errors; this would be a bug.
      failureMessage: 'thumbnail runner pass failed',
    });
  }

  /**
   * Makes (or remakes) the thumbnails of a post and marks its job done. False when the post is
   * gone; throws when its image cannot be read.
   */
  make(postId: string, image: string, priority: PoolPriority): Promise<boolean> {
    const pending = this.inFlight.get(postId);
    if (pending) return pending;
    const work = this.makeNow(postId, image, priority).finally(() => this.inFlight.delete(postId));
    this.inFlight.set(postId, work);
    return work;
  }

  private async makeNow(postId: string, image: string, priority: PoolPriority): Promise<boolean> {
    const { images, hashPool, queue } = this.deps;
    const temps = THUMBNAIL_SIZES.map((size) => ({
      size,
      tempPath: path.join(images.tmpDir, `thumb-${this.claimant}-${thumbnailName(postId, size)}`),
    }));
    try {
      const descriptors = this.deps.descriptors;
      const descriptor = descriptors?.wants(postId) ?? false;
      // S3: the image is fetched to a temp file for the workers (and removed after).
      const resize = (file: string) =>
        hashPool.thumbnails(
          file,
          temps.map((t) => ({ size: t.size, path: t.tempPath })),
          priority,
          { descriptor },
        );
      const posters = this.deps.posters;
      const made = await images.withLocalFile(image, (file) =>
        posters ? posters.withPoster(postId, file, resize) : resize(file),
      );
      const kept = await images.replaceThumbnails(image, postId, temps);
      // Before the job is done: the descriptor runner passes over posts whose job is still queued.
      // A descriptor that cannot be stored now is the runner's again: the thumbnails stand.
      if (kept && made.descriptor) {
        try {
          descriptors!.storeComputed(postId, made.descriptor);
        } catch (err) {
          this.deps.log.warn('thumbnails: the robust descriptor from their decode was not stored', {
            postId,
            err: (err as Error).message,
          });
        }
      }
      queue.done(postId);
      return kept;
    } catch (err) {
      if (!this.deps.posts.getById(postId)) return false; // deleted meanwhile: its file went first
      throw err;
    } finally {
      for (const t of temps) fs.rmSync(t.tempPath, { force: true });
    }
  }

  /**
   * For GET /media/<id>.<size>.webp when the file is missing: makes the post's thumbnails now.
   * True when the file exists afterwards, false when no such post exists (a 404).
   */
  async ensure(file: string): Promise<boolean> {
    const m = THUMBNAIL_FILE.exec(file);
    if (!m) return false;
    const post = this.deps.posts.getById(m[1]);
    if (!post) return false;
    await this.make(post.id, imageName(post), 'urgent');
    return this.deps.images.exists(file);
  }

  /**
   * Starts working through queued jobs, `parallel` at a time, while no hash waits for a worker or
   * once a job has waited HASHES_FIRST_MS for them; a hash that arrives meanwhile waits for at most
   * one thumbnail task (the jobs are rows in SQLite, so a restart meanwhile loses none of them).
   */
  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled(this.inFlight.values());
  }

  /** A job was queued: drain soon (or once more, when a pass is under way and may have missed it). */
  kick(): void {
    this.loop.kick();
  }

  /** Does due jobs until none is left (or the runner stops). */
  private async drain(): Promise<void> {
    const { queue, hashPool, log } = this.deps;
    let waitingSince: number | undefined;
    while (this.loop.running) {
      // Hashing first: uploads are waiting on it, thumbnails can wait, but not for as long as uploads
      // keep coming (a moving picture's thumbnails come from its job, docs/decisions.md §4): after
      // HASHES_FIRST_MS the job goes to the pool anyway, where a hash still runs before it.
      if (hashPool.queueSize > 0 && Date.now() - (waitingSince ??= Date.now()) < HASHES_FIRST_MS) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      waitingSince = undefined;
      let job;
      try {
        [job] = queue.claim(this.claimant, 1, LEASE_MS);
      } catch (err) {
        log.warn('thumbnail queue busy', { err: (err as Error).message });
        return;
      }
      if (!job) return;
      try {
        await this.make(job.postId, job.image, 'background');
      } catch (err) {
        log.warn('thumbnails failed', { postId: job.postId, attempts: job.attempts + 1, err: (err as Error).message });
        queue.failed(job.postId, (err as Error).message);
      }
    }
  }
}
