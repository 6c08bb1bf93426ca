import type { Core } from '../src/roles/wiring.ts';
import { findWithin } from '../src/search/similar/find-similar.ts';
import { Random } from '../tools/seed/random.ts';
import type { SeedResult } from '../tools/seed/seed.ts';
import { packHashes, popcountScan, stringScan } from './anchors/hash-scans.ts';
import { sampleLatency } from './lib/http-load.ts';
import { summarize, type LatencySummary } from './lib/stats.ts';

/**
 * Similar-image lookup latency: findWithin (multi-index hashing in Elasticsearch: four 16-bit
 * segment terms, then the exact distance) against two scans over every stored hash. One lookup at a
 * time, in process, so the figure is the lookup itself (HTTP and image hashing are not included).
 * Queries: half are planted near-duplicate cluster bases with 0-3 bits flipped (they have matches),
 * half are random hashes (they mostly do not).
 */
export interface SimilarOptions {
  samples: number;
  /** time bound for the slow string scan (it still takes at least 30 samples) */
  scanBudgetMs: number;
  /** maxDiff values to measure for ours: 8 is /api/post/similar's default, 3 the upload duplicate check */
  maxDiffs: number[];
}

export interface SimilarRow {
  maxDiff: number;
  ours: LatencySummary;
  meanMatches: number;
}

export interface SimilarResult {
  posts: number;
  rows: SimilarRow[];
  /** the scans' cost does not depend on maxDiff; they are measured once, at the largest */
  stringScan: LatencySummary;
  popcountScan: LatencySummary;
  /** ours found exactly the posts the exhaustive scan found, for every checked query */
  agrees: boolean;
  checkedQueries: number;
}

function queries(seed: SeedResult, n: number): string[] {
  const rnd = new Random(4242);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0 && seed.clusters.length > 0) out.push(rnd.flipBits(rnd.pick(seed.clusters).base, rnd.int(0, 3)));
    else out.push(rnd.bits64());
  }
  return out;
}

export async function benchSimilar(services: Core, seed: SeedResult, opts: SimilarOptions): Promise<SimilarResult> {
  const ids: string[] = [];
  const hashes: string[] = [];
  for (const row of services.db.prepare('SELECT id, hash FROM posts ORDER BY seq').iterate() as Iterable<{
    id: string;
    hash: string;
  }>) {
    ids.push(row.id);
    hashes.push(row.hash);
  }
  const packed = packHashes(hashes);
  const qs = queries(seed, Math.max(opts.samples, 200));
  const q = (i: number) => qs[i % qs.length];
  const widest = Math.max(...opts.maxDiffs);

  // Correctness first: a fast lookup that misses posts would be no result at all.
  let agrees = true;
  const checked = Math.min(40, qs.length);
  for (const maxDiff of opts.maxDiffs) {
    for (let i = 0; i < checked; i++) {
      const ours = (await findWithin(services.postsIndex, q(i), maxDiff)).map((m) => m.id).sort();
      const scan = popcountScan(packed, q(i), maxDiff)
        .map((m) => ids[m.index])
        .sort();
      if (ours.join() !== scan.join()) agrees = false;
    }
  }

  const rows: SimilarRow[] = [];
  for (const maxDiff of opts.maxDiffs) {
    for (let i = 0; i < 50; i++) await findWithin(services.postsIndex, q(i), maxDiff); // warm-up
    let matches = 0;
    const run = await sampleLatency(opts.samples, 5 * 60_000, async (i) => {
      matches += (await findWithin(services.postsIndex, q(i), maxDiff)).length;
    });
    if (run.errors > 0) throw new Error(`findWithin failed: ${run.firstError}`);
    rows.push({ maxDiff, ours: summarize(run.latencies), meanMatches: matches / run.requests });
  }

  for (let i = 0; i < 20; i++) popcountScan(packed, q(i), widest);
  const pop = await sampleLatency(opts.samples, 5 * 60_000, async (i) => void popcountScan(packed, q(i), widest));
  for (let i = 0; i < 3; i++) stringScan(hashes, q(i), widest);
  // Bounded in time: at 1M posts one scan takes tens of milliseconds.
  const str = await sampleLatency(opts.samples, opts.scanBudgetMs, async (i) => void stringScan(hashes, q(i), widest));
  let strLatencies = str.latencies;
  if (strLatencies.length < 30) {
    const more = await sampleLatency(
      30 - strLatencies.length,
      10 * 60_000,
      async (i) => void stringScan(hashes, q(i + 1000), widest),
    );
    strLatencies = strLatencies.concat(more.latencies);
  }
  return {
    posts: hashes.length,
    rows,
    stringScan: summarize(strLatencies),
    popcountScan: summarize(pop.latencies),
    agrees,
    checkedQueries: checked * opts.maxDiffs.length,
  };
}
