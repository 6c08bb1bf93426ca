import { Random } from '../tools/seed/random.ts';
import type { SeedResult } from '../tools/seed/seed.ts';
import type { ToolJob } from '../src/roles/jobs.ts';
import { captureEngineCalls, replay, type EngineCall } from './anchors/engine-direct.ts';
import { CpuTally, cpuWindow, type CpuSplit } from './lib/cpu.ts';
import { closedLoop } from './lib/http-load.ts';
import { postJson } from './lib/requests.ts';
import { appendAll, nowMs, repeated, summarize, type LatencySummary, type Repeated } from './lib/stats.ts';

/**
 * POST /image/search throughput, HTTP end to end, with 50 concurrent clients (closed loop, keep-alive)
 * against the server process. A seeded mix of the endpoint's condition types and a few pages deep.
 */
export interface ImageSearchOptions {
  reps: number;
  repMs: number;
  concurrency: number;
  /** started just before the measured repetitions and stopped after them */
  cpu?: () => { stop(): CpuSplit };
}

export interface ImageSearchResult {
  throughput: Repeated;
  /** latency by kind of request, one client at a time (no queueing): which conditions cost the most */
  perKind: Record<string, LatencySummary>;
  requests: number;
  errors: number;
  firstError?: string;
  /** cores used by each process during the measured repetitions */
  cpu?: CpuSplit;
  latency: LatencySummary;
  concurrency: number;
}

const WORDS = [
  'cat',
  'sunset',
  'mountain',
  'river',
  'night',
  'blue',
  'photo',
  'light',
  'tree',
  'coffee',
  'city',
  'snow',
];

const KINDS = ['tagInclude', 'textContains', 'textMatch', 'ratingEq+tag', 'uploadedBy', 'none'] as const;

export function bodies(
  seed: Pick<SeedResult, 'tags' | 'users'>,
  n: number,
): { kind: string; path: string; body: unknown }[] {
  const rnd = new Random(99);
  const out: { kind: string; path: string; body: unknown }[] = [];
  for (let i = 0; i < n; i++) {
    const tag = seed.tags[rnd.skewed(seed.tags.length, 1.5)];
    const word = rnd.pick(WORDS);
    const conditions = [
      [{ type: 'tagInclude', value: tag }],
      [{ type: 'textContains', value: word }],
      [{ type: 'textMatch', value: word }],
      [
        { type: 'ratingEq', value: 'moderate' },
        { type: 'tagInclude', value: tag },
      ],
      [{ type: 'uploadedBy', value: seed.users.length ? rnd.pick(seed.users).name : 'nobody' }],
      [],
    ][i % 6];
    const orderBy = conditions[0]?.type === 'textMatch' ? 'relevance' : rnd.pick(['uploadDate', 'id']);
    const offset = rnd.chance(0.8) ? 0 : rnd.int(1, 10) * 24;
    out.push({
      kind: KINDS[i % 6],
      path: `/image/search?offset=${offset}&limit=24`,
      body: { conditions, orderBy, order: rnd.pick(['asc', 'desc']) },
    });
  }
  return out;
}

export async function benchImageSearch(
  seed: SeedResult,
  url: string,
  opts: ImageSearchOptions,
): Promise<ImageSearchResult> {
  const list = bodies(seed, 300);
  const task = async (i: number) => {
    const q = list[i % list.length];
    const answer = (await postJson(url + q.path, q.body)) as { error: unknown };
    if (answer.error !== null) throw new Error(`/image/search answered error ${JSON.stringify(answer.error)}`);
  };
  // Warm-up, also opening the keep-alive connections.
  await closedLoop({ concurrency: opts.concurrency, durationMs: Math.min(3000, opts.repMs), task });
  // Under 50 clients every request mostly waits in queues; the cost of each kind shows one at a time.
  const byKind = new Map<string, number[]>(KINDS.map((k) => [k, []]));
  for (let i = 0; i < Math.min(list.length, 240); i++) {
    const t0 = nowMs();
    await task(i);
    byKind.get(list[i].kind)!.push(nowMs() - t0);
  }

  const cpu = opts.cpu?.();
  const runs: number[] = [];
  const latencies: number[] = [];
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  for (let r = 0; r < opts.reps; r++) {
    const run = await closedLoop({
      concurrency: opts.concurrency,
      durationMs: opts.repMs,
      maxRequests: 2_000_000,
      task: (i) => task(i * 13 + r),
    });
    runs.push(run.rps);
    appendAll(latencies, run.latencies);
    requests += run.requests;
    errors += run.errors;
    firstError ??= run.firstError;
  }
  const cpuSplit = cpu?.stop();
  const perKind = Object.fromEntries([...byKind].map(([kind, ms]) => [kind, summarize(ms)]));
  return {
    throughput: repeated(runs),
    perKind,
    cpu: cpuSplit,
    requests,
    errors,
    firstError,
    latency: summarize(latencies),
    concurrency: opts.concurrency,
  };
}

/**
 * What facets cost (docs/decisions.md §11): the same requests with `facets: ["tags","rating","uploader"]`
 * and without, on the same server and corpus. Latency one request at a time, the two variants
 * interleaved request by request (so drift on a shared box hits both alike); throughput in
 * alternating closed-loop windows at `concurrency` clients.
 */
export const ALL_FACETS = ['tags', 'rating', 'uploader'] as const;

/**
 * The facets figure's raw-engine anchor: the endpoint's own engine calls for 300 bodies of the request mix,
 * without and with facets, captured in process to be sent straight to Elasticsearch.
 */
export async function facetsAnchor(
  services: ToolJob,
  seed: Pick<SeedResult, 'tags' | 'users'>,
  esUrl: string,
): Promise<NonNullable<FacetsOptions['anchor']>> {
  const list = bodies(seed, 300);
  return {
    esUrl,
    plain: await captureEngineCalls(services, list),
    faceted: await captureEngineCalls(
      services,
      list.map((q) => ({ ...q, body: { ...(q.body as object), facets: ALL_FACETS } })),
    ),
  };
}

export interface FacetsOptions {
  /**
   * the raw-engine anchor: the endpoint's captured engine calls per body (bench/anchors/engine-direct.ts), replayed in
   * the same windows
   */
  anchor?: { esUrl: string; plain: EngineCall[][]; faceted: EngineCall[][] };
  /** a second server (e.g. the base commit) measured in the same windows */
  before?: string;
  samples: number;
  reps: number;
  repMs: number;
  concurrency: number;
  /** CPU per request of each variant's windows (server: ours, or the second server's for its variants) */
  cpuOf?: { serverPid: number; beforePid?: number; esPid?: number };
}

/** CPU milliseconds per request over a variant's windows: who pays for each request. */
export interface CpuPerRequest {
  server: number;
  elasticsearch: number;
  loadGenerator: number;
}

export interface FacetsResult {
  without: LatencySummary;
  with: LatencySummary;
  withoutThroughput: Repeated;
  withThroughput: Repeated;
  /** p50 with ÷ p50 without (the latency cost of facets; 1 = free) */
  latencyRatio: number;
  /** median req/s with ÷ without */
  throughputRatio: number;
  errors: number;
  firstError?: string;
  concurrency: number;
  /** median req/s of the anchor windows and of the second server's, when measured */
  anchorWithoutThroughput?: Repeated;
  anchorWithThroughput?: Repeated;
  beforeWithoutThroughput?: Repeated;
  beforeWithThroughput?: Repeated;
  cpuPerRequest?: Record<string, CpuPerRequest>;
}

export async function benchFacets(
  seed: Pick<SeedResult, 'tags' | 'users'>,
  url: string,
  opts: FacetsOptions,
): Promise<FacetsResult> {
  const list = bodies(seed, 300);
  let facetsSeen = 0;
  const task = (facets: boolean) => async (i: number) => {
    const q = list[i % list.length];
    const body = facets ? { ...(q.body as object), facets: ALL_FACETS } : q.body;
    const answer = (await postJson(url + q.path, body)) as { error: unknown; data?: { facets?: unknown } };
    if (answer.error !== null) throw new Error(`/image/search answered error ${JSON.stringify(answer.error)}`);
    if (facets && answer.data?.facets === undefined) throw new Error('/image/search answered without facets');
    if (facets) facetsSeen++;
  };
  const plain = task(false);
  const faceted = task(true);
  for (let i = 0; i < 60; i++) await (i % 2 ? faceted : plain)(i); // warm-up
  const without: number[] = [];
  const withF: number[] = [];
  for (let i = 0; i < opts.samples; i++) {
    for (const [run, into] of (i % 2
      ? [
          [faceted, withF],
          [plain, without],
        ]
      : [
          [plain, without],
          [faceted, withF],
        ]) as [typeof plain, number[]][]) {
      const t0 = nowMs();
      await run(i);
      into.push(nowMs() - t0);
    }
  }
  // Every variant in alternating windows: drift on a shared box hits them alike.
  const variants: Record<string, (i: number) => Promise<void>> = { without: plain, with: faceted };
  const { anchor, before } = opts;
  if (anchor) {
    variants.anchorWithout = (i) => replay(anchor.esUrl, anchor.plain[i % list.length]);
    variants.anchorWith = (i) => replay(anchor.esUrl, anchor.faceted[i % list.length]);
  }
  if (before) {
    const other = (facets: boolean) => async (i: number) => {
      const q = list[i % list.length];
      const answer = (await postJson(
        before + q.path,
        facets ? { ...(q.body as object), facets: ALL_FACETS } : q.body,
      )) as { error: unknown };
      if (answer.error !== null)
        throw new Error(`/image/search (before) answered error ${JSON.stringify(answer.error)}`);
    };
    variants.beforeWithout = other(false);
    variants.beforeWith = other(true);
  }
  const runs = new Map<string, number[]>(Object.keys(variants).map((k) => [k, []]));
  for (const name of Object.keys(variants))
    if (name !== 'with' && name !== 'without')
      await closedLoop({ concurrency: opts.concurrency, durationMs: 1000, task: variants[name] });
  let errors = 0;
  let firstError: string | undefined;
  const spent = new Map<string, CpuTally<'server' | 'elasticsearch'>>();
  const c = opts.cpuOf;
  for (let r = 0; r < opts.reps; r++) {
    const names = Object.keys(variants);
    for (const name of r % 2 ? names.reverse() : names) {
      // The anchor windows go straight to Elasticsearch: no server of ours in them.
      const pid = c && (name.startsWith('before') ? c.beforePid : name.startsWith('anchor') ? undefined : c.serverPid);
      const closeWindow = cpuWindow({ server: pid, elasticsearch: c?.esPid });
      const run = await closedLoop({
        concurrency: opts.concurrency,
        durationMs: opts.repMs,
        maxRequests: 2_000_000,
        task: (i) => variants[name](i * 13 + r),
      });
      if (!spent.has(name)) spent.set(name, new CpuTally());
      spent.get(name)!.add(closeWindow(), run.requests);
      runs.get(name)!.push(run.rps);
      errors += run.errors;
      firstError ??= run.firstError;
    }
  }
  const runsWith = runs.get('with')!;
  const runsWithout = runs.get('without')!;
  const extra = (name: string) => (runs.has(name) ? repeated(runs.get(name)!) : undefined);
  if (facetsSeen === 0) throw new Error('no faceted request succeeded');
  const w = summarize(withF);
  const wo = summarize(without);
  const tw = repeated(runsWith);
  const two = repeated(runsWithout);
  return {
    without: wo,
    with: w,
    withoutThroughput: two,
    withThroughput: tw,
    latencyRatio: w.p50 / wo.p50,
    throughputRatio: tw.median / two.median,
    errors,
    firstError,
    concurrency: opts.concurrency,
    anchorWithoutThroughput: extra('anchorWithout'),
    anchorWithThroughput: extra('anchorWith'),
    beforeWithoutThroughput: extra('beforeWithout'),
    beforeWithThroughput: extra('beforeWith'),
    ...(c
      ? {
          cpuPerRequest: Object.fromEntries(
            [...spent].map(([name, x]) => [
              name,
              {
                server: x.perRequestMs('server'),
                elasticsearch: x.perRequestMs('elasticsearch'),
                loadGenerator: x.perRequestMs('self'),
              },
            ]),
          ),
        }
      : {}),
  };
}
