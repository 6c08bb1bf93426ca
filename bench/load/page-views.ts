/**
 * The page-view load (issue 28): `npx tsx bench/load/page-views.ts [--corpus DIR] [--posts N]
 * [--seconds 600] [--clients 50] [--think-ms 0] [--warmup 30] [--label NAME] [--no-append] [--cpu-prof DIR]`.
 *
 * `clients` simulated people (bench/load/person.ts) each open the home page, a search page (a Zipf
 * mix of popular and rare queries, most with facets, some with textMatch) or now and then a post
 * page, and fetch what the page shows as a browser does; 5 % of their actions are edits and uploads.
 * Reports page views/s, p50/p99 per page view and per kind, errors, server and Elasticsearch CPU per
 * page view and the server's RSS over time. Memory stays bounded for hour-long runs: latencies go to
 * histograms (bench/lib/histogram.ts), RSS is one sample a second, the people's caches are capped.
 *
 * --corpus DIR reuses a kept corpus (bench/load/corpus.ts; seeded on first use); without it a
 * temporary one of --posts posts is made and removed. The result is kept under --label in
 * bench/load/pageviews.json; unless --no-append, bench/notes/page-views.md and the dashboard
 * (bench/RESULTS.md) are rewritten from it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { cpuWindow, elasticsearchPid, type CpuSpent } from '../lib/cpu.ts';
import { writeDashboard } from '../dashboard.ts';
import { machineInfo } from '../lib/env.ts';
import { Histogram } from '../lib/histogram.ts';
import { startServerProcess, type ServerProcess } from '../lib/server-process.ts';
import { readRss } from '../memory.ts';
import { openCorpus, temporaryCorpus, type Corpus } from './corpus.ts';
import { DEFAULT_MIX, Person, PAGE_VIEWS, type ActionKind, type World } from './person.ts';
import { queryUniverse, Zipf } from './queries.ts';
import { renderPageViews, writePageViews, type MinuteRow, type PageViewRun } from './page-views-report.ts';
import { commandLine, headerOf, parseCli } from '../lib/cli.ts';
import { benchElasticsearchUrl } from '../lib/elasticsearch.ts';

const { values: a } = parseCli({
  usage: headerOf(import.meta.url),
  options: {
    corpus: { type: 'string' },
    posts: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '600' },
    clients: { type: 'string', default: '50' },
    'think-ms': { type: 'string', default: '0' },
    warmup: { type: 'string', default: '30' },
    label: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'no-append': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(a.seconds);
const CLIENTS = Number(a.clients);
const THINK_MS = Number(a['think-ms']);
const WARMUP = Number(a.warmup);
const POSTS = Number(a.posts);
for (const [name, v] of [
  ['seconds', SECONDS],
  ['clients', CLIENTS],
  ['think-ms', THINK_MS],
  ['warmup', WARMUP],
  ['posts', POSTS],
] as const)
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name}: expected a number ≥ 0`);
const ES_URL = await benchElasticsearchUrl();
const log = (line: string) => process.stderr.write(`[page-views ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const KINDS: ActionKind[] = [...PAGE_VIEWS, 'edit', 'upload'];

/**
 * The server's resident memory split into anonymous (heaps, malloc) and file-backed (code, mapped files), and its
 * thread count.
 */
function readMemory(pid: number): { rssAnonMiB: number; rssFileMiB: number; threads: number } {
  try {
    const st = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(st)?.[1] ?? Number.NaN);
    return { rssAnonMiB: kb('RssAnon') / 1024, rssFileMiB: kb('RssFile') / 1024, threads: kb('Threads') };
  } catch {
    return { rssAnonMiB: Number.NaN, rssFileMiB: Number.NaN, threads: Number.NaN };
  }
}

/** The main thread's V8 heap and external memory, from the server's own /metrics (open to loopback). */
async function mainThreadHeap(
  base: string,
): Promise<{ heapTotalMiB?: number; heapUsedMiB?: number; externalMiB?: number }> {
  try {
    const text = await (await fetch(`${base}/metrics`)).text();
    const value = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
    return {
      heapTotalMiB: value('nodejs_heap_size_total_bytes'),
      heapUsedMiB: value('nodejs_heap_size_used_bytes'),
      externalMiB: value('nodejs_external_memory_bytes'),
    };
  } catch {
    return {};
  }
}

async function uploadPool(corpusDir: string): Promise<Buffer[]> {
  const dir = path.join(corpusDir, 'pool');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jpg'))
    .slice(0, 32);
  // Phone-sized uploads (800 px): the upload path hashes and thumbnails each one.
  return Promise.all(
    files.map((f) => sharp(path.join(dir, f)).resize(800, 800, { fit: 'inside' }).jpeg({ quality: 85 }).toBuffer()),
  );
}

async function main(): Promise<number> {
  let corpus: Corpus;
  let drop: (() => Promise<void>) | undefined;
  const t0 = Date.now();
  if (a.corpus) corpus = await openCorpus({ dir: path.resolve(a.corpus), posts: POSTS, esUrl: ES_URL });
  else ({ corpus, drop } = await temporaryCorpus(POSTS, ES_URL));
  log(`corpus of ${corpus.posts} posts ready in ${((Date.now() - t0) / 1000).toFixed(0)} s (${corpus.dir})`);
  let server: ServerProcess | undefined;
  try {
    // --cpu-prof DIR: a V8 profile of the server (and of npm's and any wrapper's processes: the file names carry the
    // pid).
    const preload = path.join(import.meta.dirname, '../lib/cpu-profile-preload.cjs');
    const prof: Record<string, string> = a['cpu-prof']
      ? {
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
          CPU_PROFILE_DIR: path.resolve(a['cpu-prof']),
        }
      : {};
    server = await startServerProcess({ ...corpus.env, ...prof });
    const esPid = await elasticsearchPid(ES_URL);
    // At the start: its load average is the one before the run (the report adds the one at the end).
    const machine = await machineInfo(ES_URL);
    const queries = queryUniverse(corpus.tags, corpus.users);
    const world: World = {
      base: server.url,
      queries,
      zipf: new Zipf(queries.length, 1),
      tags: corpus.tags,
      writerKey: corpus.writer.accessKey,
      uploads: await uploadPool(corpus.dir),
      mix: DEFAULT_MIX,
      counts: { full: 0, notModified: 0, bytes: 0 },
    };
    log(
      `server pid ${server.pid} at ${server.url}; ${CLIENTS} people, ${THINK_MS} ms mean think time, ${WARMUP} s warm-up then ${SECONDS} s`,
    );

    let measuring = false;
    const total = new Map(KINDS.map((k) => [k, new Histogram()]));
    const errors = new Map(KINDS.map((k) => [k, { count: 0, first: [] as string[] }]));
    let minute = new Histogram();
    let minuteErrors = 0;
    const minutes: MinuteRow[] = [];
    const rss: { s: number; mib: number }[] = [];
    const generatorRss: number[] = [];

    const started = performance.now();
    const measureFrom = started + WARMUP * 1000;
    let deadline = measureFrom + SECONDS * 1000;
    // SIGTERM ends the measurement early (a run that must make room), keeping what was measured so far.
    process.once('SIGTERM', () => {
      deadline = Math.min(deadline, Math.max(performance.now(), measureFrom + 1000));
      log('SIGTERM: ending the measured span now');
    });
    // Two CPU windows: the whole measured span, and the current minute.
    const openWindow = () => cpuWindow({ server: server!.pid, es: esPid });
    let closeSpan: (() => CpuSpent<'server' | 'es'>) | undefined;
    let closeMinute = closeSpan;
    let cpuEnd: CpuSpent<'server' | 'es'> | undefined;
    const sampler = setInterval(() => {
      const now = performance.now();
      if (!measuring && now >= measureFrom) {
        measuring = true;
        closeSpan = openWindow();
        closeMinute = openWindow();
        world.counts.full = world.counts.notModified = world.counts.bytes = 0;
      }
      if (!measuring || cpuEnd) return;
      const s = (now - measureFrom) / 1000;
      const r = readRss(server!.pid);
      if (r) rss.push({ s, mib: r.rss / 2 ** 20 });
      if (s >= (minutes.length + 1) * 60 || now >= deadline) {
        const c = closeMinute!();
        closeMinute = openWindow();
        const wall = c.wallS;
        const recent = rss
          .filter((p) => p.s > s - 60)
          .map((p) => p.mib)
          .sort((x, y) => x - y);
        const row: MinuteRow = {
          ...readMemory(server!.pid),
          loadAverage: os.loadavg()[0],
          minute: minutes.length + 1,
          pageViews: minute.n,
          perSecond: minute.n / wall,
          p50: minute.percentile(50),
          p99: minute.percentile(99),
          errors: minuteErrors,
          rssMedianMiB: recent[recent.length >> 1] ?? Number.NaN,
          serverCores: c.server / wall,
          esCores: c.es / wall,
        };
        minutes.push(row);
        void mainThreadHeap(server!.url).then((h) => Object.assign(row, h));
        generatorRss.push(process.memoryUsage().rss / 2 ** 20);
        const m = minutes[minutes.length - 1];
        log(
          `minute ${m.minute}: ${m.pageViews} page views (${m.perSecond.toFixed(1)}/s), p50 ${m.p50.toFixed(0)} ms, p99 ${m.p99.toFixed(0)} ms, ${m.errors} errors, server RSS ${m.rssMedianMiB.toFixed(0)} MiB, cores server ${m.serverCores.toFixed(2)} ES ${m.esCores.toFixed(2)}`,
        );
        minute = new Histogram();
        minuteErrors = 0;
        // The measured span ends at the deadline; actions still running then are not counted.
        if (now >= deadline) cpuEnd = closeSpan!();
      }
    }, 1000);

    const thinking = (rnd: number) =>
      THINK_MS > 0
        ? new Promise((r) => setTimeout(r, Math.min(10 * THINK_MS, -THINK_MS * Math.log(1 - rnd))))
        : Promise.resolve();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const person = new Person(world, i);
        while (performance.now() < deadline) {
          const kind = person.next();
          const t = performance.now();
          let failed = false;
          try {
            await person.run(kind);
          } catch (err) {
            failed = true;
            if (measuring) {
              const e = errors.get(kind)!;
              e.count++;
              if (e.first.length < 3)
                e.first.push(
                  err instanceof Error
                    ? `${err.message}${err.cause ? ` (${(err.cause as Error).message})` : ''}`
                    : String(err),
                );
            }
          }
          const ms = performance.now() - t;
          if (measuring && performance.now() <= deadline) {
            total.get(kind)!.add(ms);
            if (PAGE_VIEWS.includes(kind)) minute.add(ms);
            if (failed) minuteErrors++;
          }
          await thinking(Math.random());
        }
      }),
    );
    while (!cpuEnd) await new Promise((r) => setTimeout(r, 200));
    clearInterval(sampler);
    const end = cpuEnd;
    const wall = end.wallS;
    const pages = new Histogram();
    for (const k of PAGE_VIEWS) pages.merge(total.get(k)!);
    const run: PageViewRun = {
      label: a.label ?? `${CLIENTS} people, ${SECONDS} s`,
      command: commandLine('npx tsx bench/load/page-views.ts'),
      startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
      machine,
      loadAverageEnd: os.loadavg().map((n) => Math.round(n * 100) / 100),
      posts: corpus.posts,
      clients: CLIENTS,
      thinkMs: THINK_MS,
      warmupSeconds: WARMUP,
      seconds: wall,
      mix: DEFAULT_MIX,
      queries: queries.length,
      pageViews: pages.summary(),
      byKind: Object.fromEntries(
        KINDS.map((k) => [
          k,
          { ...total.get(k)!.summary(), errors: errors.get(k)!.count, firstErrors: errors.get(k)!.first },
        ]),
      ),
      media: { ...world.counts },
      cpu: { serverSeconds: end.server, esSeconds: end.es, loadGeneratorSeconds: end.self },
      minutes,
      rss,
      loadGeneratorRssMiB: generatorRss,
    };
    const md = renderPageViews(run);
    process.stdout.write(md);
    writePageViews(run, { appendToResults: !a['no-append'] });
    if (!a['no-append']) writeDashboard();
    log(`wrote bench/load/pageviews.json${a['no-append'] ? '' : ', bench/notes/page-views.md and bench/RESULTS.md'}`);
    return KINDS.some((k) => errors.get(k)!.count > 0) ? 1 : 0;
  } catch (err) {
    log(`FAILED: ${(err as Error).stack}${server ? `\n--- server stderr ---\n${server.tail()}` : ''}`);
    return 1;
  } finally {
    await server?.stop();
    await drop?.();
  }
}

process.exitCode = await main();
