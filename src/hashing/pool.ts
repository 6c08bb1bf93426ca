/**
 * Typed wrapper around the piscina pool that runs workers/hash-worker.ts. The worker is named by
 * its path only; the tasks' types are in tasks.ts, which the worker imports.
 */
// sharp's docs: on glibc Linux the main thread must load sharp before worker threads do, so its
// shared libraries stay mapped until every worker has exited.
import 'sharp';
import { Piscina } from 'piscina';
import { AppError, invalid } from '../errors.ts';
import { workerExecArgv } from '../util/worker-exec-argv.ts';
import { PriorityTaskQueue, priorityOption, type PoolPriority } from './priority-queue.ts';
import { INVALID_PREFIX, type AnalyseRequest, type ImageInfo, type MadeThumbnail, type RobustRequest, type RobustResult, type ThumbnailRequest } from './tasks.ts';

export type { ImageInfo };

export interface HashPool {
  /** `dihedral`: also the hashes of the eight mirrored/rotated variants (`info.dihedral`) */
  analyse(path: string, opts?: { dihedral?: boolean }): Promise<ImageInfo>;
  /**
   * WebP thumbnails of an accepted image, written to the given paths (same pool). `background`
   * work waits behind every hash (default `urgent`: someone is waiting for it).
   */
  thumbnails(path: string, outputs: ThumbnailRequest['outputs'], priority?: PoolPriority): Promise<MadeThumbnail[]>;
  /**
   * The robust descriptor of an accepted image (decisions §16); `background` by default (made after
   * the upload is answered, and by the backfill). An unreadable image answers quality 0, no hashes.
   */
  robust(path: string, priority?: PoolPriority): Promise<RobustResult>;
  readonly queueSize: number;
  readonly utilization: number;
  destroy(): Promise<void>;
}

const WORKER = new URL('../../workers/hash-worker.ts', import.meta.url).href;

export function createHashPool(opts: { workers: number; maxQueue?: number }): HashPool {
  // Three tasks share the worker file: the default export (analyse) and the named `thumbnails` and `robust`.
  const pool = new Piscina<AnalyseRequest | ThumbnailRequest | RobustRequest, ImageInfo>({
    filename: WORKER,
    minThreads: opts.workers,
    maxThreads: opts.workers,
    maxQueue: opts.maxQueue ?? Infinity,
    execArgv: workerExecArgv(WORKER),
    taskQueue: new PriorityTaskQueue(),
  });

  return {
    async analyse(path, opts) {
      try {
        return await pool.run({ path, ...(opts?.dihedral ? { dihedral: true } : {}) });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (message.startsWith(INVALID_PREFIX)) throw invalid(['image'], message.slice(INVALID_PREFIX.length));
        // piscina rejects with these when maxQueue is reached (or is 0 and every worker is busy): shed load instead of queueing forever.
        if (/queue is at limit|no task queue available/i.test(message)) throw new AppError('unavailable', 'image analysis is busy, try again', undefined, 1);
        throw err;
      }
    },
    async thumbnails(path, outputs, priority = 'urgent') {
      try {
        const made: unknown = await pool.run({ path, outputs, ...priorityOption(priority) }, { name: 'thumbnails' });
        return made as MadeThumbnail[];
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (message.startsWith(INVALID_PREFIX)) throw invalid(['image'], message.slice(INVALID_PREFIX.length));
        if (/queue is at limit|no task queue available/i.test(message)) throw new AppError('unavailable', 'image processing is busy, try again', undefined, 1);
        throw err;
      }
    },
    async robust(path, priority = 'background') {
      try {
        const made: unknown = await pool.run({ path, ...priorityOption(priority) }, { name: 'robust' });
        return made as RobustResult;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (/queue is at limit|no task queue available/i.test(message)) throw new AppError('unavailable', 'image processing is busy, try again', undefined, 1);
        throw err;
      }
    },
    get queueSize() {
      return pool.queueSize;
    },
    get utilization() {
      return pool.utilization;
    },
    destroy: () => pool.destroy(),
  };
}
