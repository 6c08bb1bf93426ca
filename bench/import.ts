/**
 * Import throughput (docs/decisions.md §22): posts a second importing a gallery-dl archive of N posts with
 * its metadata (tags of every category, a rating, a source, a date, a parent for every tenth post, a pool),
 * against the anchor, `imgpost import` of the same files without metadata, in the same run: two boards of
 * their own, each with its server running, the archive cut into chunks imported in turns (metadata, bare,
 * bare, metadata, ...). And `/image/search` p99 on the metadata board's server, one request at a time,
 * before the import and during its chunks. Each import is the command's own function (importArchive, as
 * `imgpost import` calls it) in this process, so no process start-up is counted.
 *
 * Usage: npx tsx bench/import.ts [--posts N] [--chunk N] [--keep] [--record]
 *   --record   add the row to bench/recorded.json (date, commit) and rewrite bench/RESULTS.md
 */
import fs from 'node:fs';
import path from 'node:path';
import { ImportRuns } from '../src/import/import-runs.ts';
import { importArchive, type ImportDeps } from '../src/import/importer.ts';
import type { ToolJob } from '../src/roles/jobs.ts';
import { silentProgress } from '../src/util/progress.ts';
import sharp from 'sharp';
import { tempDir } from './lib/env.ts';
import { closedLoop } from './lib/http-load.ts';
import { headerOf, numberArg, parseCli, runIfMain } from './lib/cli.ts';
import { imageSearch } from './lib/requests.ts';
import { recordRows, sizeLabel, writeDashboard, type DashboardRow } from './dashboard.ts';
import { gitCommit } from './lib/env.ts';
import { alive } from './lib/server-process.ts';
import { standalone, type Standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize, type LatencySummary } from './lib/stats.ts';

const CATEGORIES = ['general', 'artist', 'copyright', 'character', 'meta'] as const;

/** A 16x12 PNG of 8x8 grey blocks from `seed`: different seeds are different pictures (no near-duplicates). */
function tinyImage(seed: number): Promise<Buffer> {
  let x = (seed * 2654435761) >>> 0 || 1;
  const blocks = Array.from({ length: 64 }, () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x & 0xff;
  });
  const [w, h] = [16, 12];
  const raw = Buffer.alloc(w * h);
  for (let py = 0; py < h; py++)
    for (let px = 0; px < w; px++) raw[py * w + px] = blocks[Math.floor((py * 8) / h) * 8 + Math.floor((px * 8) / w)];
  return sharp(raw, { raw: { width: w, height: h, channels: 1 } })
    .png()
    .toBuffer();
}

/** Writes chunk `c` of the archive twice: with gallery-dl's metadata beside each file, and bare. */
async function writeChunk(root: string, c: number, from: number, to: number): Promise<{ meta: string; bare: string }> {
  const meta = path.join(root, `meta-${c}`);
  const bare = path.join(root, `bare-${c}`);
  fs.mkdirSync(meta);
  fs.mkdirSync(bare);
  const ids = Array.from({ length: to - from }, (_, i) => from + i + 1);
  const images = await Promise.all(ids.map((id) => tinyImage(1_000_000 + id)));
  ids.forEach((id, i) => {
    const tags = Object.fromEntries(
      CATEGORIES.map((cat, k) => [`tag_string_${cat}`, `${cat}_${id % (10 + k * 7)} ${cat}_shared`]),
    );
    fs.writeFileSync(path.join(meta, `${id}.png`), images[i]);
    fs.writeFileSync(path.join(bare, `${id}.png`), images[i]);
    fs.writeFileSync(
      path.join(meta, `${id}.png.json`),
      JSON.stringify({
        id,
        created_at: new Date(Date.UTC(2015, 0, 1) + id * 60_000).toISOString(),
        rating: 'gsqe'[id % 4],
        source: `https://example.org/${id}`,
        md5: '',
        tag_string: Object.values(tags).join(' '),
        ...tags,
        parent_id: id % 10 === 0 ? id - 1 : null,
        ...(id % 50 < 5
          ? { pool: { id: Math.floor(id / 1000), name: `pool ${Math.floor(id / 1000)}` }, num: id % 50 }
          : {}),
        category: 'benchbooru',
      }),
    );
  });
  return { meta, bare };
}

const depsOf = (s: ToolJob): ImportDeps => ({
  postService: s.postService,
  posts: s.postRepository,
  unitOfWork: s.unitOfWork,
  pools: s.pools,
  comments: s.people.comments,
  users: s.accounts.users,
  runs: new ImportRuns(s.db),
  tmpDir: s.images.tmpDir,
});

export interface ImportBenchResult {
  posts: number;
  chunk: number;
  /** seconds spent importing, summed over the chunks */
  metaSeconds: number;
  bareSeconds: number;
  before: LatencySummary;
  during: LatencySummary;
  searchErrors: number;
}

/** The dashboard's row for a run (bench/RESULTS.md). */
export function importRow(r: ImportBenchResult, date: string, commit: string): DashboardRow {
  const meta = r.posts / r.metaSeconds;
  const bare = r.posts / r.bareSeconds;
  const corpus = sizeLabel(r.posts);
  return {
    key: `import@${corpus}`,
    figure: `Import of a gallery-dl archive with Danbooru metadata, chunks of ${r.chunk.toLocaleString('en-US')} in turns with the anchor (${corpus} posts)`,
    ours:
      `${fmt(meta)} posts/s (${fmt(r.metaSeconds)} s); /image/search meanwhile (1 client) p50 ${fmt(r.during.p50)} ms, ` +
      `p99 ${fmt(r.during.p99)} ms, ${r.searchErrors} errors`,
    anchor:
      `the same files without metadata (bare posts): ${fmt(bare)} posts/s (${fmt(r.bareSeconds)} s); ` +
      `/image/search before the import p50 ${fmt(r.before.p50)} ms, p99 ${fmt(r.before.p99)} ms`,
    ratio: `${fmt(meta / bare)}× the bare import; search p99 ${fmt(r.during.p99 / r.before.p99)}× before`,
    goal: 'none stated (issue 48 asks for the figure at 100,000 posts)',
    met: 'none',
    date,
    commit,
    notes: 'notes/import.md',
  };
}

const OPTIONS = { force: false, dryRun: false, mapUsers: false, progress: () => silentProgress };

async function main(): Promise<void> {
  const { values } = parseCli({
    usage: headerOf(import.meta.url),
    options: {
      posts: { type: 'string' },
      chunk: { type: 'string' },
      keep: { type: 'boolean' },
      record: { type: 'boolean' },
    },
  });
  const posts = numberArg(values.posts, 100_000);
  const chunk = numberArg(values.chunk, 1000);
  const root = tempDir('import-archive');
  const measuredAt = new Date().toISOString();
  try {
    await standalone('import-meta', Boolean(values.keep), async (withMeta: Standalone) => {
      await standalone('import-bare', Boolean(values.keep), async (bare: Standalone) => {
        const url = await withMeta.startServer();
        await bare.startServer();
        const search = imageSearch(url)((i) => ({ conditions: [{ type: 'tagInclude', value: `general_${i % 10}` }] }));
        const timed = { meta: 0, bare: 0 };
        const during: number[] = [];
        // A search that fails is counted, not fatal, unless the server has gone (then the figure means nothing).
        let searchErrors = 0;
        const searchOnce = async (i: number): Promise<number | undefined> => {
          const t0 = nowMs();
          try {
            await search(i);
            return nowMs() - t0;
          } catch (err) {
            searchErrors++;
            const pid = withMeta.serverPid();
            if (pid === undefined || !alive(pid)) throw err;
            return undefined;
          }
        };
        let before: number[] | undefined;
        for (let c = 0, from = 0; from < posts; c++, from += chunk) {
          const dirs = await writeChunk(root, c, from, Math.min(posts, from + chunk));
          // The board's search alone, once there is something to search (after the first chunk).
          if (c === 1) before = (await closedLoop({ concurrency: 1, durationMs: 15_000, task: search })).latencies;
          const runMeta = async () => {
            let stop = false;
            // One search at a time while the chunk imports (none during the first: nothing to search yet).
            const load = (async () => {
              for (let i = 0; c > 0 && !stop; i++) {
                const ms = await searchOnce(i);
                if (ms !== undefined) during.push(ms);
              }
            })();
            const t0 = nowMs();
            const s = await importArchive(depsOf(withMeta.services), dirs.meta, OPTIONS);
            timed.meta += nowMs() - t0;
            stop = true;
            await load;
            if (s.imported + s.merged !== Math.min(posts, from + chunk) - from)
              throw new Error(`chunk ${c}: ${JSON.stringify({ ...s, mapping: undefined }).slice(0, 400)}`);
          };
          const runBare = async () => {
            const t0 = nowMs();
            await importArchive(depsOf(bare.services), dirs.bare, OPTIONS);
            timed.bare += nowMs() - t0;
          };
          // Turns: the order flips every chunk, so neither always follows the other.
          if (c % 2 === 0) await runMeta().then(runBare);
          else await runBare().then(runMeta);
          fs.rmSync(dirs.meta, { recursive: true, force: true });
          fs.rmSync(dirs.bare, { recursive: true, force: true });
          process.stderr.write(`chunk ${c}: ${Math.min(posts, from + chunk)} posts\n`);
        }
        const metaRate = posts / (timed.meta / 1000);
        const bareRate = posts / (timed.bare / 1000);
        const b = summarize(before ?? []);
        const d = summarize(during);
        console.log(`import of ${posts} posts in chunks of ${chunk}, the two boards taking turns`);
        console.log(`  with metadata: ${fmt(metaRate)} posts/s (${fmt(timed.meta / 1000)} s)`);
        console.log(`  bare (anchor): ${fmt(bareRate)} posts/s (${fmt(timed.bare / 1000)} s)`);
        console.log(`  ratio: ${fmt(metaRate / bareRate)}×`);
        console.log(`  /image/search p50/p99 before: ${fmt(b.p50)}/${fmt(b.p99)} ms (${before?.length ?? 0} requests)`);
        console.log(`  /image/search p50/p99 during: ${fmt(d.p50)}/${fmt(d.p99)} ms (${during.length} requests)`);
        console.log(`  /image/search errors during: ${searchErrors}`);
        const result: ImportBenchResult = {
          posts,
          chunk,
          metaSeconds: timed.meta / 1000,
          bareSeconds: timed.bare / 1000,
          before: b,
          during: d,
          searchErrors,
        };
        console.log(JSON.stringify(result));
        if (values.record) {
          recordRows([importRow(result, measuredAt, gitCommit())]);
          writeDashboard();
        }
      });
    });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
