/**
 * Typed wrapper around the piscina pool that runs workers/hash-worker.ts. The worker is named by
 * its path only; the tasks' types are in tasks.ts, which the worker imports.
 */
// sharp's docs: on glibc Linux the main thread must load sharp before worker threads do, so its
// shared libraries stay mapped until every worker has exited.
import 'sharp';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { AppError, invalid } from '../errors.ts';
import { workerExecArgv } from '../util/worker-exec-argv.ts';
import { PriorityTaskQueue, priorityOption, type PoolPriority } from './priority-queue.ts';
import {
  INVALID_PREFIX,
  type AnalyseRequest,
  type ImageInfo,
  type RobustRequest,
  type RobustResult,
  type ThumbnailRequest,
  type ThumbnailResult,
} from './tasks.ts';

export type { ImageInfo };

export interface HashPool {
  /**
   * `dihedral`: also the hashes of the eight mirrored/rotated variants (`info.dihedral`); `priority` `urgent` by
   * default (an upload waits for it), `background` for a backfill
   */
  analyse(path: string, opts?: { dihedral?: boolean; priority?: PoolPriority }): Promise<ImageInfo>;
  /**
   * WebP thumbnails of an accepted image, written to the given paths (same pool), and with
   * `descriptor` its robust descriptor from the same decode. `background` work waits behind every
   * hash (default `urgent`: someone is waiting for it).
   */
  thumbnails(
    path: string,
    outputs: ThumbnailRequest['outputs'],
    priority?: PoolPriority,
    opts?: { descriptor?: boolean },
  ): Promise<ThumbnailResult>;
  /**
   * The robust descriptor of an accepted image (docs/decisions.md §16); `background` by default (made after
   * the upload is answered, and by the backfill). An unreadable image answers quality 0, no hashes.
   */
  robust(path: string, priority?: PoolPriority): Promise<RobustResult>;
  readonly queueSize: number;
  /** urgent tasks given and not settled yet (running or queued): uploads in their image work */
  readonly urgentTasks: number;
  readonly utilization: number;
  /** workers running now (fewer than configured while idle, see `idleMs`) */
  readonly threads: number;
  destroy(): Promise<void>;
}

const WORKER = new URL('../../workers/hash-worker.ts', import.meta.url).href;

type Tasks = AnalyseRequest | ThumbnailRequest | RobustRequest;

/** piscina's refusals when its queue is full (or is 0 and every worker is busy). */
const QUEUE_FULL = /queue is at limit|no task queue available/i;

/** Tasks given to the first worker (running and waiting) from which an urgent one goes to the overflow pool. */
const OVERFLOW_AT = 3;

/** A piscina pool and the tasks given to it that have not settled yet (running or queued). */
interface Lane {
  pool: Piscina<Tasks, ImageInfo>;
  queue: PriorityTaskQueue;
  load: number;
  /** notes the pool's threads started since the last call (a task may start one) */
  watch(): void;
  /** resolves when every thread seen has loaded the worker module (or exited) */
  loaded(): Promise<void>;
}

/** What a piscina worker posts once it has loaded the worker module (piscina's `READY` key). */
const READY = '_WORKER_READY';

function lane(threads: { min: number; max: number }, maxQueue: number, idleMs?: number): Lane {
  const queue = new PriorityTaskQueue();
  // Three tasks share the worker file: the default export (analyse) and the named `thumbnails` and `robust`.
  const pool = new Piscina<Tasks, ImageInfo>({
    filename: WORKER,
    minThreads: threads.min,
    maxThreads: threads.max,
    ...(idleMs === undefined ? {} : { idleTimeout: idleMs }),
    maxQueue,
    execArgv: workerExecArgv(WORKER),
    taskQueue: queue,
  });
  // Terminating a worker while it still loads its modules can abort the whole process on Node 24
  // before 24.19 (a fatal error in the CommonJS export lexer, nodejs/node#63323; seen once in CI when
  // an app was closed right after it started). So destroy() first waits for the threads to load.
  const loading = new Map<Worker, Promise<void>>();
  const seen = new WeakSet<Worker>();
  const watch = () => {
    for (const worker of pool.threads) {
      if (seen.has(worker)) continue;
      seen.add(worker);
      const done = new Promise<void>((resolve) => {
        const onMessage = (m: unknown) => {
          if (typeof m === 'object' && m !== null && READY in m) finish();
        };
        const finish = () => {
          worker.off('message', onMessage);
          worker.off('exit', finish);
          loading.delete(worker);
          resolve();
        };
        worker.on('message', onMessage);
        worker.once('exit', finish);
      });
      loading.set(worker, done);
    }
  };
  watch();
  return { pool, queue, load: 0, watch, loaded: async () => void (await Promise.all(loading.values())) };
}

/**
 * `idleMs` (the server): one worker always, the others only while work piles up, each leaving after
 * this long without any. A worker is an isolate with sharp loaded, a visible share of the server's
 * memory, and a server mostly serves pages: under the page-view load the pool gets a few images a
 * second (post pages' similar lookups, uploads) and one worker is mostly idle. piscina starts a worker
 * whenever a task finds every worker busy, which at that rate kept the second one alive for good; so
 * the first worker has a pool of its own, and an urgent task goes to the overflow pool only when the
 * first already has one running and two waiting (OVERFLOW_AT): a worker takes longer to start than the
 * first takes to clear a task or two, so only a backlog (an upload burst) is worth one, and each start
 * and exit moves the server's memory (figures: bench/notes/image-search.md, "One hash worker while
 * idle", and bench/notes/page-views.md). Background work
 * (thumbnails, robust descriptors) stays on the first worker and never starts another.
 * Without `idleMs` (jobs), all workers share one pool and live as long as it.
 */
export function createHashPool(opts: { workers: number; maxQueue?: number; idleMs?: number }): HashPool {
  const maxQueue = opts.maxQueue ?? Infinity;
  const elastic = opts.idleMs !== undefined && opts.workers > 1;
  const first = lane(elastic ? { min: 1, max: 1 } : { min: opts.workers, max: opts.workers }, maxQueue);
  const overflow = elastic ? lane({ min: 0, max: opts.workers - 1 }, maxQueue, opts.idleMs) : undefined;
  const lanes = overflow ? [first, overflow] : [first];
  let urgentTasks = 0;

  /**
   * Runs a task on its lane. A refusal of the worker's (INVALID_PREFIX) becomes a 400 where `as.invalid`
   * says the task reads an upload; piscina's refusal when the queue is full (or is 0 and every worker is
   * busy) becomes a 503 with `as.busy`, shedding load instead of queueing forever.
   */
  const run = async (
    task: Tasks,
    options: { name?: string },
    priority: PoolPriority,
    as: { busy: string; invalid: boolean },
  ): Promise<unknown> => {
    const to = overflow && priority === 'urgent' && first.load >= OVERFLOW_AT ? overflow : first;
    to.load++;
    if (priority === 'urgent') urgentTasks++;
    try {
      const result = to.pool.run(task, options);
      to.watch();
      return await result;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (as.invalid && message.startsWith(INVALID_PREFIX))
        throw invalid(['image'], message.slice(INVALID_PREFIX.length));
      if (QUEUE_FULL.test(message)) {
        to.queue.drop(task);
        throw new AppError('unavailable', as.busy, undefined, 1);
      }
      throw err;
    } finally {
      to.load--;
      if (priority === 'urgent') urgentTasks--;
    }
  };
  const ANALYSIS = { busy: 'image analysis is busy, try again', invalid: true };
  const PROCESSING = { busy: 'image processing is busy, try again', invalid: true };
  // A descriptor is taken of files already read as images: its worker's errors pass through as they are.
  const DESCRIPTOR = { ...PROCESSING, invalid: false };

  return {
    async analyse(path, opts) {
      const priority = opts?.priority ?? 'urgent';
      return (await run(
        { path, ...(opts?.dihedral ? { dihedral: true } : {}), ...priorityOption(priority) },
        {},
        priority,
        ANALYSIS,
      )) as ImageInfo;
    },
    async thumbnails(path, outputs, priority = 'urgent', opts) {
      return (await run(
        { path, outputs, ...(opts?.descriptor ? { descriptor: true } : {}), ...priorityOption(priority) },
        { name: 'thumbnails' },
        priority,
        PROCESSING,
      )) as ThumbnailResult;
    },
    async robust(path, priority = 'background') {
      return (await run(
        { path, ...priorityOption(priority) },
        { name: 'robust' },
        priority,
        DESCRIPTOR,
      )) as RobustResult;
    },
    get queueSize() {
      return lanes.reduce((n, l) => n + l.pool.queueSize, 0);
    },
    get urgentTasks() {
      return urgentTasks;
    },
    get utilization() {
      // Each pool's share of its own capacity, weighed by that capacity.
      return lanes.reduce((u, l) => u + l.pool.utilization * l.pool.options.maxThreads, 0) / opts.workers;
    },
    get threads() {
      return lanes.reduce((n, l) => n + l.pool.threads.length, 0);
    },
    destroy: async () => {
      // A thread still loading its modules is not terminated (see lane()); each loads in well under a second.
      await Promise.all(lanes.map((l) => l.loaded()));
      await Promise.all(lanes.map((l) => l.pool.destroy()));
    },
  };
}
