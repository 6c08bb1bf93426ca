import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '../src/roles/wiring.ts';
import { mergesToOne, reindex } from '../src/search/reindex.ts';
import { IndexRetirement } from '../src/search/retirement.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { prepareBulk, rawBulk } from './anchors/raw-bulk.ts';
import { tempDir } from './lib/env.ts';
import { standalone } from './lib/standalone.ts';
import { nowMs, repeated, type Repeated } from './lib/stats.ts';
import { numberArg, parseCli, runIfMain } from './lib/cli.ts';

/**
 * Reindex throughput (docs/s): reindex() exactly as `imgpost reindex` calls it (batch 1000, the
 * default settle, the alias swap and the recording of the previous index for retirement inside the
 * clock), against a raw _bulk of prepared documents. The command returns once the alias is swapped;
 * the previous index's retirement (closed a grace period later, deleted once the relays' target
 * cache has expired) is the server's, so it runs here after the clock, before the anchor. The first
 * repetition is the reindex that fills the index for the rest of the suite. Runs alternate (ours,
 * raw, ours, raw, ...) so both see the same box.
 */
export interface ReindexOptions {
  reps: number;
  batch?: number;
  /**
   * the anchor's documents: a sample of about this many, every n-th batch of the corpus, into an empty index
   * (default all). An index of a tenth the size takes its documents at least as fast, so the ratio is if anything
   * lower than against the whole corpus; at 10M the whole anchor would take as long again as the reindex.
   */
  rawDocs?: number;
  log?: (line: string) => void;
}

/** Where one reindex spent its time, in seconds (the last repetition's). */
export interface ReindexPhases {
  /** due retirement steps of earlier reindexes, and the index creation */
  prepare: number;
  load: number;
  /**
   * settings, refresh, what is left of the wait for running relays to see the new index (it runs
   * from its creation, so the load covers it at any real size), outbox catch-up and the alias swap
   */
  finish: number;
  /** after the swap: starting the background merge (the previous index is only recorded) */
  retire: number;
}

export interface ReindexResult {
  posts: number;
  phases: ReindexPhases;
  ours: Repeated;
  /** the bulk-loading phase alone (no settle/grace waits, swap or catch-up) */
  oursLoadPhase: Repeated;
  raw: Repeated;
  ratio: number;
  loadPhaseRatio: number;
  bulkMiB: number;
  /** documents in the anchor (all posts, or the sample `rawDocs` asked for) */
  rawDocs?: number;
  /**
   * Diagnostic: seconds this process took to build every bulk body for the anchor (SQLite reads,
   * toPostDocument, JSON), with Elasticsearch idle: the document-building share of a reindex.
   */
  buildSeconds: number;
  /**
   * Seconds from the end of the last reindex until its background merge to one segment finished
   * (outside the clock: the command has returned and the new index serves; the raw bulk waits for it).
   */
  mergeSeconds: number;
}

/** Waits until the index is one segment with no merge running (the reindex's background merge). */
async function waitForMerge(services: Core, index: string, timeoutMs = 90 * 60_000): Promise<number> {
  const started = nowMs();
  // An index above MERGE_TO_ONE_MAX_BYTES keeps its segments: then only the merges already running are waited for.
  const toOne = await mergesToOne(services.es, index);
  for (;;) {
    const stats = await services.es.indices.stats({ index, metric: ['merge', 'segments'] });
    const primaries = stats._all.primaries;
    if ((primaries?.merges?.current ?? 0) === 0 && (!toOne || (primaries?.segments?.count ?? 0) <= 1))
      return (nowMs() - started) / 1000;
    if (nowMs() - started > timeoutMs)
      throw new Error(`${index}: still ${primaries?.segments?.count} segments after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function benchReindex(services: Core, opts: ReindexOptions): Promise<ReindexResult> {
  const batch = opts.batch ?? 1000;
  const log = opts.log ?? (() => {});
  const esUrl = services.config.elasticsearch.url;
  if (!esUrl) throw new Error('the bench needs ELASTICSEARCH_URL resolved');
  const ours: number[] = [];
  const loadPhase: number[] = [];
  const raw: number[] = [];
  let prepared: ReturnType<typeof prepareBulk> | undefined;
  let posts = 0;
  let buildSeconds = Number.NaN;
  let phases: ReindexPhases = { prepare: 0, load: 0, finish: 0, retire: 0 };
  let mergeSeconds = Number.NaN;
  for (let r = 0; r < opts.reps; r++) {
    let loadStart = 0;
    let loadEnd = 0;
    let swapped = 0;
    let lastLog = nowMs();
    const started = nowMs();
    // reindex() logs the alias swap; that timestamp splits the finish from the grace period.
    const note = (msg: string) => void (msg.includes('alias swapped') && (swapped = nowMs()));
    const quiet = () => {};
    const deps = { ...services, log: { debug: quiet, warn: quiet, error: quiet, info: note } };
    const result = await reindex(deps, {
      batch,
      progress: () => ({
        phase: () => void (loadStart = nowMs()),
        update: (done, total) => {
          if (nowMs() - lastLog > 15_000) {
            lastLog = nowMs();
            log(`  reindex ${done}/${total ?? '?'}`);
          }
        },
        done: () => void (loadEnd = nowMs()),
      }),
    });
    const ended = nowMs();
    posts = result.posts;
    phases = {
      prepare: (loadStart - started) / 1000,
      load: (loadEnd - loadStart) / 1000,
      finish: ((swapped || ended) - loadEnd) / 1000,
      retire: (ended - (swapped || ended)) / 1000,
    };
    ours.push((result.posts / result.ms) * 1000);
    loadPhase.push((result.posts / (loadEnd - loadStart)) * 1000);
    log(`  reindex rep ${r + 1}: ${result.posts} posts in ${(result.ms / 1000).toFixed(1)} s`);
    // What the server's loop does after the command: close, then delete, the previous index.
    const retireStart = nowMs();
    await new IndexRetirement(services).settle();
    log(`  previous index retired ${((nowMs() - retireStart) / 1000).toFixed(1)} s after the return`);
    mergeSeconds = await waitForMerge(services, result.index);
    log(`  background merge to one segment: ${mergeSeconds.toFixed(1)} s more`);

    // Prepared once, after the first reindex (outside the anchor's clock), then reused by every raw repetition.
    if (!prepared) {
      const t0 = nowMs();
      const every = opts.rawDocs ? Math.max(1, Math.round(result.posts / opts.rawDocs)) : 1;
      prepared = prepareBulk(services.postRepository, batch, path.join(tempDir('raw-bulk'), 'bodies.ndjson'), every);
      buildSeconds = (nowMs() - t0) / 1000;
    }
    const run = await rawBulk(esUrl, services.postsIndex, prepared);
    raw.push(run.docsPerSec);
    log(`  raw _bulk rep ${r + 1}: ${run.docs} docs in ${(run.ms / 1000).toFixed(1)} s`);
  }
  const bulkMiB = (prepared?.bytes ?? 0) / 2 ** 20;
  const rawDocs = prepared?.docs;
  // About a gigabyte per million posts.
  if (prepared) fs.rmSync(path.dirname(prepared.file), { recursive: true, force: true });
  const result = { ours: repeated(ours), oursLoadPhase: repeated(loadPhase), raw: repeated(raw) };
  return {
    posts,
    phases,
    ...result,
    ratio: result.ours.median / result.raw.median,
    loadPhaseRatio: result.oursLoadPhase.median / result.raw.median,
    bulkMiB,
    rawDocs,
    buildSeconds,
    mergeSeconds,
  };
}

/**
 * `npx tsx bench/reindex.ts [--posts N] [--reps N]`: the reindex figure alone, on a corpus of its own
 * (seeded as the core run seeds it), with its own DATA_DIR and index prefix; prints the result as JSON.
 */
async function main(): Promise<void> {
  const { values } = parseCli({
    usage: 'Usage: npx tsx bench/reindex.ts [--posts N=1000000] [--reps N=2] [--keep]\n',
    options: { posts: { type: 'string' }, reps: { type: 'string' }, keep: { type: 'boolean' } },
  });
  const posts = numberArg(values.posts, 1_000_000);
  const reps = numberArg(values.reps, 2);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  await standalone('reindex', values.keep ?? false, async ({ services }) => {
    const t0 = nowMs();
    seedPosts(services.db, { count: posts, seed: 1 });
    log(`seeded ${posts} posts in ${((nowMs() - t0) / 1000).toFixed(1)} s`);
    const r = await benchReindex(services, { reps, log });
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  });
}

runIfMain(import.meta.url, main);
