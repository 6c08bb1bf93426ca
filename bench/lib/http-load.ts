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

export class HttpError extends Error {}

/** POSTs JSON and drains the answer; any status but `expect` is an error. */
export async function postJson(url: string, body: unknown, expect = 200): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new HttpError(`POST ${new URL(url).pathname}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/**
 * Two kinds of request measured interleaved, so the load other work puts on the box falls on both
 * alike: latencies one request at a time alternating the two (after a warm-up of both), then req/s
 * with `concurrency` clients in four windows of `durationMs / 2`, alternating. Any error throws.
 */
export async function interleaved(
  tasks: [(i: number) => Promise<unknown>, (i: number) => Promise<unknown>],
  opts: { samples: number; durationMs: number; concurrency: number },
): Promise<[{ latencies: number[]; rps: number }, { latencies: number[]; rps: number }]> {
  await sampleLatency(Math.min(100, opts.samples), 30_000, (i) => tasks[i % 2](i >> 1));
  const latencies: [number[], number[]] = [[], []];
  for (let i = 0; i < opts.samples * 2; i++) {
    const t0 = nowMs();
    await tasks[i % 2](i >> 1);
    latencies[i % 2].push(nowMs() - t0);
  }
  const windows: [LoadResult[], LoadResult[]] = [[], []];
  for (let w = 0; w < 4; w++) {
    const r = await closedLoop({ concurrency: opts.concurrency, durationMs: opts.durationMs / 2, task: tasks[w % 2] });
    if (r.errors > 0) throw new Error(`${r.errors} errors of ${r.requests}, first: ${r.firstError}`);
    windows[w % 2].push(r);
  }
  const rps = (rs: LoadResult[]) => (rs.reduce((a, r) => a + r.requests, 0) / rs.reduce((a, r) => a + r.ms, 0)) * 1000;
  return [
    { latencies: latencies[0], rps: rps(windows[0]) },
    { latencies: latencies[1], rps: rps(windows[1]) },
  ];
}
