import { nowMs } from './stats.ts';

/**
 * In-process load generation: a closed loop of `concurrency` workers, each issuing its next request
 * when the previous one answers. Bounded in both count and time, so a slow or broken target ends
 * the phase instead of hanging the run. Node's global fetch (undici) keeps connections alive, and
 * with at most `concurrency` requests in flight it opens at most that many sockets.
 */
export interface LoadOptions {
  concurrency: number;
  /** stop issuing new requests after this long */
  durationMs: number;
  /** and after this many requests in total */
  maxRequests?: number;
  /** one request; throws (or rejects) to count an error */
  task: (i: number) => Promise<unknown>;
}

export interface LoadResult {
  requests: number;
  errors: number;
  ms: number;
  /** completed requests (errors included) per second */
  rps: number;
  /** per-request latency in ms, errors included */
  latencies: number[];
  firstError?: string;
}

export async function closedLoop(opts: LoadOptions): Promise<LoadResult> {
  const max = opts.maxRequests ?? Number.POSITIVE_INFINITY;
  const start = nowMs();
  const deadline = start + opts.durationMs;
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (issued < max && nowMs() < deadline) {
      const i = issued++;
      const t0 = nowMs();
      try {
        await opts.task(i);
      } catch (err) {
        errors++;
        firstError ??= describe(err);
      }
      latencies.push(nowMs() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const ms = nowMs() - start;
  return { requests: latencies.length, errors, ms, rps: (latencies.length / ms) * 1000, latencies, firstError };
}

/** Latency samples: one request at a time, at most `samples` of them and at most `maxMs` long. */
export async function sampleLatency(
  samples: number,
  maxMs: number,
  task: (i: number) => Promise<unknown>,
): Promise<LoadResult> {
  return closedLoop({ concurrency: 1, durationMs: maxMs, maxRequests: samples, task });
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}

/** A load run as it came, throwing (named `what`) when any of its requests failed. */
export function check(r: LoadResult, what: string): LoadResult {
  if (r.errors > 0) throw new Error(`${what}: ${r.errors} errors of ${r.requests}, first: ${r.firstError}`);
  return r;
}
