/**
 * The core figures issue 41 added to every corpus size of `npm run bench`: the robust lookup against its
 * scan (sampled), `/posts.json` against `/image/search`, bytes per post in SQLite and Elasticsearch, and
 * Elasticsearch's heap under the search load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decodeDescriptor } from '../src/robust/format.ts';
import type { Descriptor } from '../src/robust/rule.ts';
import { DATABASE_FILE } from '../src/db/sqlite.ts';
import type { Core } from '../src/roles/wiring.ts';
import { Random } from '../tools/seed/random.ts';
import { findRobust, scanRobust } from '../src/search/similar/robust-lookup.ts';
import { rssFlatness, type PageViewRun } from './load/page-views-report.ts';
import { postsJson, tagSearch } from './lib/requests.ts';
import { endpointsTakingTurns, type TurnFigure } from './lib/turns.ts';
import { nowMs, summarize, type LatencySummary } from './lib/stats.ts';

export interface RobustScaleResult {
  /** posts whose descriptor the index holds terms for */
  descriptors: number;
  ours: LatencySummary;
  scan: LatencySummary;
  /** queries whose own post was among the lookup's answers */
  found: number;
  /** scanned queries whose answers equalled the lookup's */
  agreed: number;
}

/** A copy of a stored descriptor: 8 of each hash's 256 bits flipped (3 %) and a few of its cells' bits. */
function copyOf(rnd: Random, d: Descriptor): Descriptor {
  const hashes = Uint32Array.from(d.hashes);
  for (let h = 0; h < hashes.length / 8; h++)
    for (let f = 0; f < 8; f++) hashes[h * 8 + rnd.int(0, 7)] ^= 1 << rnd.int(0, 31);
  const cells = d.cells && { quality: d.cells.quality, words: Uint32Array.from(d.cells.words) };
  if (cells) for (let f = 0; f < cells.words.length / 32; f++) cells.words[rnd.int(0, cells.words.length - 1)] ^= 1;
  return { hashes, quality: d.quality, ...(cells ? { cells } : {}) };
}

/**
 * The robust lookup (findRobust, in process: the Elasticsearch candidates, then the rule on their descriptors
 * from SQLite) for copies of `samples` random posts' descriptors; the linear scan of every stored descriptor
 * (scanRobust) for the first `scans` of them, its answers compared with the lookup's.
 */
export async function benchRobustScale(
  services: Core,
  opts: { samples: number; scans: number },
): Promise<RobustScaleResult> {
  const rnd = new Random(4141);
  const db = services.db;
  const withTerms = db
    .prepare('SELECT seq FROM posts WHERE robust IS NOT NULL AND length(robust) > 16')
    .pluck()
    .all() as number[];
  if (withTerms.length === 0) throw new Error('no post has a robust descriptor');
  const read = db.prepare('SELECT robust FROM posts WHERE seq = ?').pluck();
  const queries = Array.from({ length: opts.samples }, () => {
    const seq = withTerms[rnd.int(0, withTerms.length - 1)];
    return { seq, q: copyOf(rnd, decodeDescriptor(read.get(seq) as Buffer)!) };
  });
  const store = services.postRepository.robust;
  for (const { q } of queries.slice(0, 10)) await findRobust(services.postsIndex, store, q);
  const ours: number[] = [];
  const answers: number[][] = [];
  let found = 0;
  for (const { seq, q } of queries) {
    const t0 = nowMs();
    const hits = await findRobust(services.postsIndex, store, q);
    ours.push(nowMs() - t0);
    answers.push(hits.map((h) => h.seq));
    if (hits.some((h) => h.seq === seq)) found++;
  }
  const scan: number[] = [];
  let agreed = 0;
  for (let i = 0; i < Math.min(opts.scans, queries.length); i++) {
    const t0 = nowMs();
    const hits = scanRobust(store, queries[i].q);
    scan.push(nowMs() - t0);
    if (JSON.stringify(hits.map((h) => h.seq)) === JSON.stringify(answers[i])) agreed++;
  }
  return { descriptors: withTerms.length, ours: summarize(ours), scan: summarize(scan), found, agreed };
}

export interface PostsJsonResult {
  booru: TurnFigure;
  search: TurnFigure;
  /** req/s of /posts.json ÷ req/s of /image/search */
  ratio: number;
  pairs: number;
}

/**
 * `/posts.json?tags=a b&limit=20` against `/image/search` with the same two tagInclude conditions, ordered by id,
 * 20 a page, taking turns as in the booru section (lib/turns.ts); the pairs are of the 40 most used tags.
 */
export async function benchPostsJson(
  services: Core,
  url: string,
  pids: { serverPid(): number | undefined; env: Record<string, string> },
  opts: { samples: number; ms: number; log: (line: string) => void },
): Promise<PostsJsonResult> {
  const top = services.db
    .prepare(
      "SELECT name FROM tags WHERE name GLOB '[a-z]*' AND name NOT GLOB '*[^a-z0-9_]*' ORDER BY post_count DESC LIMIT 40",
    )
    .pluck()
    .all() as string[];
  const rnd = new Random(3939);
  const pairs = Array.from({ length: 64 }, () => {
    const a = rnd.int(0, top.length - 1);
    const b = (a + rnd.int(1, top.length - 1)) % top.length;
    return [top[a], top[b]];
  });
  const pair = (i: number) => pairs[i % pairs.length];
  const booru = (i: number) => postsJson(url, pair(i), 20);
  const search = (i: number) => tagSearch(url, pair(i), 20);
  const figures = await endpointsTakingTurns(
    pids,
    [
      { name: 'booru', task: async (i) => void (await booru(i)) },
      { name: 'search', task: async (i) => void (await search(i)) },
    ],
    // As the booru section measures it: 50 clients, three rounds.
    { samples: opts.samples, ms: opts.ms, clients: 50, rounds: 3, log: opts.log },
  );
  const f = (name: string) => figures.get(name)!;
  return { booru: f('booru'), search: f('search'), ratio: f('booru').rps / f('search').rps, pairs: pairs.length };
}

export interface StorageResult {
  sqliteBytes: number;
  esBytes: number;
  /** documents in the index (a pool membership is a nested document of its post) */
  esDocs: number;
  posts: number;
  sqliteBytesPerPost: number;
  esBytesPerPost: number;
}

/** Bytes on disk per post: the SQLite file (after a checkpoint) and the index's primary store. */
export async function storageFigures(services: Core, dataDir: string): Promise<StorageResult> {
  services.db.pragma('wal_checkpoint(TRUNCATE)');
  const sqliteBytes = fs.statSync(path.join(dataDir, DATABASE_FILE)).size;
  const stats = await services.es.indices.stats({ index: services.postsIndex.alias, metric: ['store', 'docs'] });
  const primaries = stats._all.primaries;
  const esBytes = primaries?.store?.size_in_bytes ?? Number.NaN;
  const posts = services.postRepository.count();
  return {
    sqliteBytes,
    esBytes,
    esDocs: primaries?.docs?.count ?? Number.NaN,
    posts,
    sqliteBytesPerPost: sqliteBytes / posts,
    esBytesPerPost: esBytes / posts,
  };
}

export interface HeapSummary {
  maxMiB: number;
  medianMiB: number;
  heapMaxMiB: number;
  samples: number;
}

/** Samples the Elasticsearch node's JVM heap use every second until `stop`. */
export function sampleEsHeap(esUrl: string): { stop(): Promise<HeapSummary> } {
  const used: number[] = [];
  let heapMax = Number.NaN;
  const sample = async () => {
    try {
      const res = await fetch(`${esUrl}/_nodes/_local/stats/jvm?filter_path=nodes.*.jvm.mem`);
      const body = (await res.json()) as {
        nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }>;
      };
      const mem = Object.values(body.nodes)[0].jvm.mem;
      used.push(mem.heap_used_in_bytes / 2 ** 20);
      heapMax = mem.heap_max_in_bytes / 2 ** 20;
    } catch {
      // a missed sample: the node is busy or restarting; the summary says how many were taken
    }
  };
  const timer = setInterval(() => void sample(), 1000);
  return {
    async stop() {
      clearInterval(timer);
      await sample();
      const sorted = [...used].sort((a, b) => a - b);
      return {
        maxMiB: sorted[sorted.length - 1] ?? Number.NaN,
        medianMiB: sorted[sorted.length >> 1] ?? Number.NaN,
        heapMaxMiB: heapMax,
        samples: used.length,
      };
    },
  };
}

export interface PageViewFigure {
  label: string;
  seconds: number;
  pageViews: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  rssPeakMiB: number;
  /** spread of the per-minute RSS medians over the last (up to) 10 minutes, as a share of the lowest */
  rssSpread: number;
  rssMinutes: number;
}

/** What the scale table reads of a page-view run (bench/load/page-views.ts). */
export function pageViewFigure(run: PageViewRun): PageViewFigure {
  const minutes = Math.min(10, Math.floor(run.seconds / 60));
  const flat = minutes > 0 ? rssFlatness(run, minutes) : undefined;
  let peak = 0;
  for (const p of run.rss) peak = Math.max(peak, p.mib);
  return {
    label: run.label,
    seconds: run.seconds,
    pageViews: run.pageViews.n,
    perSecond: run.pageViews.n / run.seconds,
    p50: run.pageViews.p50,
    p99: run.pageViews.p99,
    errors: Object.values(run.byKind).reduce((n, k) => n + k.errors, 0),
    rssPeakMiB: peak,
    rssSpread: flat?.spread ?? Number.NaN,
    rssMinutes: minutes,
  };
}
