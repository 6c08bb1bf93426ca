/**
 * How loads take turns: the box is shared, so a figure and its anchor are never measured one after the
 * other but in rounds, each taking its turn in every round, and the load other work puts on the box falls
 * on all of them alike. `takeTurns` is that one schedule; the helpers below are its usual shapes.
 */
import { CpuTally, cpuWindow, elasticsearchPid } from './cpu.ts';
import { check, closedLoop, sampleLatency, type LoadResult } from './http-load.ts';
import { appendAll, nowMs, summarize, type LatencySummary } from './stats.ts';

/**
 * `rounds` rounds; in each, every phase in order, and in each phase every contender in order:
 * round 0 phase 0 (a, b, …), round 0 phase 1 (a, b, …), round 1 phase 0 (a, b, …), …
 */
export async function takeTurns<T>(
  rounds: number,
  contenders: readonly T[],
  phases: ((contender: T, round: number, k: number) => Promise<unknown>)[],
  beforeRound?: (round: number) => void,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    beforeRound?.(round);
    for (const phase of phases) for (const [k, c] of contenders.entries()) await phase(c, round, k);
  }
}

/**
 * Two kinds of request measured taking turns: latencies one request at a time alternating the two
 * (after a warm-up of both), then req/s with `concurrency` clients in four windows of `durationMs / 2`,
 * alternating. Any error throws.
 */
export async function pairTakingTurns(
  tasks: [(i: number) => Promise<unknown>, (i: number) => Promise<unknown>],
  opts: { samples: number; durationMs: number; concurrency: number },
): Promise<[{ latencies: number[]; rps: number }, { latencies: number[]; rps: number }]> {
  await sampleLatency(Math.min(100, opts.samples), 30_000, (i) => tasks[i % 2](i >> 1));
  const latencies: [number[], number[]] = [[], []];
  await takeTurns(opts.samples, tasks, [
    async (task, i, k) => {
      const t0 = nowMs();
      await task(i);
      latencies[k].push(nowMs() - t0);
    },
  ]);
  const windows: [LoadResult[], LoadResult[]] = [[], []];
  await takeTurns(2, tasks, [
    async (task, _, k) => {
      const r = await closedLoop({ concurrency: opts.concurrency, durationMs: opts.durationMs / 2, task });
      if (r.errors > 0) throw new Error(`${r.errors} errors of ${r.requests}, first: ${r.firstError}`);
      windows[k].push(r);
    },
  ]);
  const rps = (rs: LoadResult[]) => (rs.reduce((a, r) => a + r.requests, 0) / rs.reduce((a, r) => a + r.ms, 0)) * 1000;
  return [
    { latencies: latencies[0], rps: rps(windows[0]) },
    { latencies: latencies[1], rps: rps(windows[1]) },
  ];
}

export interface Endpoint {
  name: string;
  task: (i: number) => Promise<void>;
}

/** A figure of an endpoint taking turns: one-client latency, req/s at many clients, CPU per request. */
export interface TurnFigure {
  latency: LatencySummary;
  rps: number;
  cpuMs: { server: number; elasticsearch: number };
}

/**
 * Every endpoint's p50/p99 one request at a time, then its req/s with `clients` clients, in `rounds`
 * rounds where each takes its turn: samples and windows summed per endpoint, with the CPU the server
 * and the engine spent over its windows.
 */
export async function endpointsTakingTurns(
  s: { serverPid(): number | undefined; env: Record<string, string> },
  endpoints: Endpoint[],
  opts: { samples: number; ms: number; clients: number; rounds: number; log: (line: string) => void },
): Promise<Map<string, TurnFigure>> {
  const { samples, ms, clients, rounds } = opts;
  const esPid = await elasticsearchPid(s.env.ELASTICSEARCH_URL);
  const latencies = new Map(endpoints.map((e) => [e.name, [] as number[]]));
  const loads = new Map(endpoints.map((e) => [e.name, { requests: 0, ms: 0 }]));
  const cpu = new Map(endpoints.map((e) => [e.name, new CpuTally<'server' | 'elasticsearch'>()]));
  for (const e of endpoints) {
    check(await sampleLatency(Math.min(100, samples), 30_000, e.task), `${e.name} warm-up`);
    check(await closedLoop({ concurrency: clients, durationMs: 1000, task: e.task }), `${e.name} warm-up`);
  }
  await takeTurns(
    rounds,
    endpoints,
    [
      async (e) => {
        const one = check(await sampleLatency(Math.ceil(samples / rounds), ms * 3, e.task), e.name);
        appendAll(latencies.get(e.name)!, one.latencies);
      },
      async (e, round) => {
        const stop = cpuWindow({ server: s.serverPid(), elasticsearch: esPid });
        const r = check(
          await closedLoop({ concurrency: clients, durationMs: ms, task: (i) => e.task(i + 1_000_000 * (round + 1)) }),
          e.name,
        );
        cpu.get(e.name)!.add(stop(), r.requests);
        const load = loads.get(e.name)!;
        load.requests += r.requests;
        load.ms += r.ms;
      },
    ],
    (round) => opts.log(`round ${round + 1} of ${rounds}`),
  );
  return new Map(
    endpoints.map((e) => {
      const load = loads.get(e.name)!;
      const tally = cpu.get(e.name)!;
      return [
        e.name,
        {
          latency: summarize(latencies.get(e.name)!),
          rps: (load.requests / load.ms) * 1000,
          cpuMs: { server: tally.perRequestMs('server'), elasticsearch: tally.perRequestMs('elasticsearch') },
        },
      ];
    }),
  );
}
