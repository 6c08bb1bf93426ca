/**
 * Typed wrapper around the piscina pool that runs workers/hash-worker.ts.
 */
// sharp's docs: on glibc Linux the main thread must load sharp before worker threads do, so its
// shared libraries stay mapped until every worker has exited.
import 'sharp';
import { Piscina } from 'piscina';
import { AppError, invalid } from '../errors.ts';
import type { AnalyseRequest, ImageInfo, ThumbnailRequest } from '../../workers/hash-worker.ts';

export type { ImageInfo };

export interface HashPool {
  /** `dihedral`: also the hashes of the eight mirrored/rotated variants (`info.dihedral`) */
  analyse(path: string, opts?: { dihedral?: boolean }): Promise<ImageInfo>;
  /** WebP thumbnails of an accepted image, written to the given paths (same pool, same queue). */
  thumbnails(path: string, outputs: ThumbnailRequest['outputs']): Promise<{ size: number; width: number; height: number }[]>;
  readonly queueSize: number;
  readonly utilization: number;
  destroy(): Promise<void>;
}

const INVALID_PREFIX = 'IMAGE_INVALID: ';
const WORKER = new URL('../../workers/hash-worker.ts', import.meta.url).href;

/**
 * The worker is TypeScript, so each worker thread must load tsx itself. Worker threads inherit
 * process.execArgv, which already carries tsx's hooks under `tsx file.ts`, `node --import tsx` and
 * ava's `--import=tsx`; add it (as a resolved URL, so the process cwd does not matter) only when
 * the parent registered tsx some other way, e.g. programmatically.
 */
function workerExecArgv(): string[] {
  const inherited = process.execArgv;
  if (inherited.some((arg) => /tsx/.test(arg))) return inherited;
  return [...inherited, '--import', import.meta.resolve('tsx')];
}

export function createHashPool(opts: { workers: number; maxQueue?: number }): HashPool {
  // Two tasks share the worker file: the default export (analyse) and the named `thumbnails`.
  const pool = new Piscina<AnalyseRequest | ThumbnailRequest, ImageInfo>({
    filename: WORKER,
    minThreads: opts.workers,
    maxThreads: opts.workers,
    maxQueue: opts.maxQueue ?? Infinity,
    execArgv: workerExecArgv(),
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
    async thumbnails(path, outputs) {
      try {
        const made: unknown = await pool.run({ path, outputs }, { name: 'thumbnails' });
        return made as { size: number; width: number; height: number }[];
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (message.startsWith(INVALID_PREFIX)) throw invalid(['image'], message.slice(INVALID_PREFIX.length));
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
