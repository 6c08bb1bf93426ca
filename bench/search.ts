import type { Core } from '../src/roles/wiring.ts';
import { parseSearchBody } from '../src/search/post-search/schemas.ts';
import { Random } from '../tools/seed/random.ts';
import type { SeedResult } from '../tools/seed/seed.ts';
import { SqlSearch, type SearchSpec } from './anchors/sql-search.ts';
import { closedLoop, sampleLatency } from './lib/http-load.ts';
import { postJson } from './lib/requests.ts';
import { median, percentile, repeated, summarize, type LatencySummary, type Repeated } from './lib/stats.ts';

/**
 * POST /api/post/search: latency (one client, p50/p99) and throughput (a few concurrent clients,
 * median of repetitions) over HTTP against the server process, next to the same selections run in
 * SQLite with LIKE and joins (bench/anchors/sql-search.ts). A fixed, seeded set of queries cycles
 * through five shapes: tag, text, tag + date range, text + date range, tag + text + date range.
 */
export interface SearchOptions {
  samples: number;
  /** time bound for the SQL anchor's samples (it still takes at least 30) */
  sqlBudgetMs: number;
  reps: number;
  repMs: number;
  concurrency: number;
}

export interface SearchResult {
  ours: LatencySummary;
  /** diagnostic: the same search called in this process (Elasticsearch + SQLite hydration, no HTTP) */
  inProcess: LatencySummary;
  oursThroughput: Repeated;
  oursErrors: number;
  sql: LatencySummary;
  /** one synchronous SQLite query at a time is all a Node process can serve: 1000 / mean latency */
  sqlThroughput: number;
  latencyRatio: number;
  throughputRatio: number;
  perShapeP50: Record<string, { ours: number; sql: number }>;
  perShapeP99: Record<string, { ours: number; sql: number }>;
  /** counts from Elasticsearch and from SQL agree, for every checked query */
  countsAgree: number;
  countsChecked: number;
  concurrency: number;
}

// ASCII words only: SQLite's LIKE folds ASCII case alone, and the counts are compared.
const NEEDLES = [
  'cat',
  'sun',
  'the',
  'mountain',
  'river',
  'night',
  'blue',
  'photo',
  'light',
  'tree',
  'old',
  'rain',
  'street',
  'wave',
];
const SHAPES = ['tag', 'text', 'tag+date', 'text+date', 'tag+text+date'] as const;

interface Query {
  shape: (typeof SHAPES)[number];
  spec: SearchSpec;
  body: { filter: Record<string, string>[] };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function searchQueries(seed: SeedResult, n: number): Query[] {
  const rnd = new Random(777);
  const out: Query[] = [];
  for (let i = 0; i < n; i++) {
    const shape = SHAPES[i % SHAPES.length];
    const spec: SearchSpec = {};
    const filter: Record<string, string>[] = [];
    if (shape.includes('tag')) {
      // Popular and rare tags alike (the seed's own skew is steeper).
      spec.tag = seed.tags[rnd.skewed(seed.tags.length, 1.5)];
      filter.push({ type: 'tag', op: 'include', value: spec.tag });
    }
    if (shape.includes('text')) {
      spec.text = rnd.pick(NEEDLES);
      filter.push({ type: 'text', op: 'contains', value: spec.text });
    }
    if (shape.includes('date')) {
      const start = Date.parse('2020-01-01') + rnd.int(0, 42) * 30 * 86_400_000;
      const end = start + rnd.int(1, 12) * 30 * 86_400_000;
      spec.from = `${day(start)}T00:00:00.000Z`;
      spec.to = `${day(end)}T00:00:00.000Z`;
      filter.push(
        { type: 'createdAt', op: 'gte', value: day(start) },
        { type: 'createdAt', op: 'lt', value: day(end) },
      );
    }
    out.push({ shape, spec, body: { filter } });
  }
  return out;
}

export async function benchSearch(
  services: Core,
  seed: SeedResult,
  url: string,
  opts: SearchOptions,
): Promise<SearchResult> {
  const qs = searchQueries(seed, 250);
  const endpoint = `${url}/api/post/search`;
  const sql = new SqlSearch(services.db, services.postRepository, services.config.mediaUrl);
  const call = async (q: Query) => (await postJson(endpoint, q.body)) as { count: number };

  let countsAgree = 0;
  const countsChecked = 25;
  for (let i = 0; i < countsChecked; i++) if ((await call(qs[i])).count === sql.search(qs[i].spec).count) countsAgree++;

  for (let i = 0; i < 50; i++) await call(qs[i % qs.length]); // warm-up
  const latency = await sampleLatency(opts.samples, 5 * 60_000, async (i) => void (await call(qs[i % qs.length])));
  if (latency.errors > 0) throw new Error(`/api/post/search failed: ${latency.firstError}`);

  const parsed = qs.map((q) => parseSearchBody(q.body));
  const direct = await sampleLatency(Math.ceil(opts.samples / 3), 2 * 60_000, async (i) => {
    await services.postSearch.search(parsed[i % qs.length], { offset: 0, limit: 24 });
  });

  const runs: number[] = [];
  let errors = 0;
  for (let r = 0; r < opts.reps; r++) {
    const run = await closedLoop({
      concurrency: opts.concurrency,
      durationMs: opts.repMs,
      maxRequests: 1_000_000,
      task: async (i) => void (await call(qs[(i * 7 + r) % qs.length])),
    });
    errors += run.errors;
    runs.push(run.rps);
  }

  for (let i = 0; i < 5; i++) sql.search(qs[i].spec); // warm-up
  const sqlRun = await sampleLatency(
    opts.samples,
    opts.sqlBudgetMs,
    async (i) => void sql.search(qs[i % qs.length].spec),
  );
  let sqlLatencies = sqlRun.latencies;
  if (sqlLatencies.length < 30) {
    const more = await sampleLatency(
      30 - sqlLatencies.length,
      10 * 60_000,
      async (i) => void sql.search(qs[(sqlLatencies.length + i) % qs.length].spec),
    );
    sqlLatencies = sqlLatencies.concat(more.latencies);
  }

  const perShapeP50: SearchResult['perShapeP50'] = {};
  const perShapeP99: SearchResult['perShapeP99'] = {};
  for (const shape of SHAPES) {
    const of = (lat: number[]) => lat.filter((_, i) => qs[i % qs.length].shape === shape);
    perShapeP50[shape] = { ours: median(of(latency.latencies)), sql: median(of(sqlLatencies)) };
    perShapeP99[shape] = { ours: percentile(of(latency.latencies), 99), sql: percentile(of(sqlLatencies), 99) };
  }
  const ours = summarize(latency.latencies);
  const sqlSummary = summarize(sqlLatencies);
  const oursThroughput = repeated(runs);
  const sqlThroughput = 1000 / sqlSummary.mean;
  return {
    ours,
    inProcess: summarize(direct.latencies),
    oursThroughput,
    oursErrors: errors,
    sql: sqlSummary,
    sqlThroughput,
    latencyRatio: sqlSummary.p50 / ours.p50,
    throughputRatio: oursThroughput.median / sqlThroughput,
    perShapeP50,
    perShapeP99,
    countsAgree,
    countsChecked,
    concurrency: opts.concurrency,
  };
}
