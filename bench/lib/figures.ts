/**
 * What a section measures with over HTTP, and how it prints it (bench/community.ts and
 * bench/conversation.ts show the use). A figure is p50/p99 one request at a time next to req/s with
 * 8 clients; every helper throws on the first failed request.
 */
import { measureCpu } from './cpu.ts';
import { check, closedLoop, sampleLatency, type LoadResult } from './http-load.ts';
import { fmt, summarize, type LatencySummary } from './stats.ts';
import { takeTurns } from './turns.ts';

/** A measured figure: latency one request at a time, req/s with 8 clients. */
export interface Figure {
  latency: LatencySummary;
  rps: number;
}

/** p50/p99 one request at a time (after a warm-up), then req/s with 8 clients. */
export async function figure(
  name: string,
  task: (i: number) => Promise<unknown>,
  samples: number,
  ms: number,
): Promise<Figure> {
  await sampleLatency(Math.min(100, samples), 30_000, task);
  const one = check(await sampleLatency(samples, ms * 3, task), name);
  const eight = check(await closedLoop({ concurrency: 8, durationMs: ms, task }), name);
  return { latency: summarize(one.latencies), rps: eight.rps };
}

/** `p50 … ms, p99 … ms, … req/s` */
export const show = (f: Figure): string =>
  `p50 ${fmt(f.latency.p50)} ms, p99 ${fmt(f.latency.p99)} ms, ${fmt(f.rps)} req/s`;

/** `req/s …×, p50 …×`: above 1 is ours faster than the anchor. */
export const ratio = (ours: Figure, anchor: Figure): string =>
  `req/s ${fmt(ours.rps / anchor.rps)}×, p50 ${fmt(anchor.latency.p50 / ours.latency.p50)}×`;

/** A write loop's result with the CPU each request cost the server and Elasticsearch (ms). */
export type CpuTimed = LoadResult & { cpuMs: { server: number; elasticsearch: number } };

/**
 * 8 clients for `ms` after a 1-s warm-up (a cold first window of edits measured 71-96 edits/s against
 * 108-217 in the next ones), timed with the CPU the server and the engine spent: a write waits for its
 * group's bulk and refresh, so its rate is mostly the engine's (issue 28). The measured loop's indexes
 * start at 100,000, past the warm-up's.
 */
export async function cpuTimed(
  pids: { server: number; elasticsearch: number | undefined },
  what: string,
  task: (i: number) => Promise<unknown>,
  ms: number,
): Promise<CpuTimed> {
  await closedLoop({ concurrency: 8, durationMs: 1000, task });
  const cpu = measureCpu(pids.server, pids.elasticsearch);
  const r = check(await closedLoop({ concurrency: 8, durationMs: ms, task: (i) => task(i + 100_000) }), what);
  const split = cpu.stop();
  const perRequest = (cores: number) => (cores * r.ms) / r.requests;
  return { ...r, cpuMs: { server: perRequest(split.server), elasticsearch: perRequest(split.elasticsearch) } };
}

/**
 * Two write loops in alternating windows (a, b, a, b, …; `rounds` of each, `ms` in all per loop), each
 * window as `cpuTimed` measures it, summed per loop: whatever the engine does meanwhile (merges after a
 * bulk load, a cold cache) weighs on both, not on whichever ran first.
 */
export async function cpuTimedAlternating(
  pids: { server: number; elasticsearch: number | undefined },
  loops: [what: string, task: (i: number) => Promise<unknown>][],
  ms: number,
  rounds = 3,
): Promise<CpuTimed[]> {
  const windows: CpuTimed[][] = loops.map(() => []);
  await takeTurns(rounds, loops, [
    async ([what, task], round, k) =>
      windows[k].push(await cpuTimed(pids, what, (i) => task(i + round * 1_000_000), ms / rounds)),
  ]);
  return windows.map((ws) => {
    const requests = ws.reduce((a, w) => a + w.requests, 0);
    const wall = ws.reduce((a, w) => a + w.ms, 0);
    const cpu = (pick: (w: CpuTimed) => number) => ws.reduce((a, w) => a + pick(w) * w.requests, 0) / requests;
    return {
      requests,
      errors: ws.reduce((a, w) => a + w.errors, 0),
      ms: wall,
      rps: (requests / wall) * 1000,
      latencies: ws.flatMap((w) => w.latencies),
      cpuMs: { server: cpu((w) => w.cpuMs.server), elasticsearch: cpu((w) => w.cpuMs.elasticsearch) },
    };
  });
}

/** `CPU per request: server … ms, Elasticsearch … ms` */
export const cpuText = (r: CpuTimed): string =>
  `CPU per request: server ${fmt(r.cpuMs.server)} ms, Elasticsearch ${fmt(r.cpuMs.elasticsearch)} ms`;
