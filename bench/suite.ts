/**
 * The benchmark suite of issue 7, what `npm run bench [-- --sizes 100000,1000000] [--quick]` runs (bench/run.ts):
 * the core figures at each corpus size, then the feature sections (bench/sections.ts).
 *
 * Every figure is measured next to its anchor in the same run, on this machine. The run uses its
 * own DATA_DIR under os.tmpdir() and its own index prefix, removes both when it ends (also on
 * Ctrl-C), and writes bench/results.json and the full report bench/notes/core-run.md, then rewrites
 * the dashboard bench/RESULTS.md from the data (bench/dashboard.ts). --quick writes
 * bench/RESULTS.quick.md and bench/results.quick.json instead (not committed) and leaves the dashboard alone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openToolJob, type ToolJob } from '../src/roles/jobs.ts';
import { benchElasticsearchUrl } from './lib/elasticsearch.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { benchHashing } from './hashing.ts';
import { markIndexed, openCorpus, type Corpus } from './load/corpus.ts';
import type { PageViewRun } from './load/page-views-report.ts';
import {
  benchPostsJson,
  benchRobustScale,
  pageViewFigure,
  sampleEsHeap,
  storageFigures,
  type PageViewFigure,
} from './scale-figures.ts';
import { benchFacets, benchImageSearch, facetsAnchor } from './image-search.ts';
import { elasticsearchPid, measureCpu } from './lib/cpu.ts';
import { gitCommit, machineInfo, ROOT, scrubPaths, tempDir } from './lib/env.ts';
import { generateImages } from './lib/images.ts';
import { startServerProcess, type ServerProcess } from './lib/server-process.ts';
import { maxOf, median } from './lib/stats.ts';
import { mergeRss, readRss, sampleRss, type RssSummary } from './memory.ts';
import { benchReindex } from './reindex.ts';
import { writeDashboard } from './dashboard.ts';
import { renderReport, withForeignSections } from './report.ts';
import type { RunResults, SizeResults } from './results.ts';
import { coreParams, defaults, robustSamples, type RunParams } from './params.ts';
import { benchSearch } from './search.ts';
import { benchSimilar } from './similar.ts';
import { benchTags } from './tags.ts';
import { benchUpload } from './upload.ts';
import { benchWebhookDrain, type WebhookDrainOptions } from './webhook-drain.ts';
import { postWebhookNodeFetch } from './lib/send-node-fetch.ts';
import { runSection, writeSection } from './lib/section.ts';
import { SECTIONS } from './sections.ts';
import { recordScale, writePlots } from './scale.ts';
import { COMMANDS } from './commands.ts';
import { commandLine, numberArg, parseCli, usageError } from './lib/cli.ts';

const USAGE = `Usage: npm run bench -- [--sizes 100000,1000000] [--quick] [--keep] [--only NAME] [--drain-deliveries N]
                       [--drain-reps N] [--drain-node-fetch] [--corpus-root DIR] [--page-view-seconds N]

  --sizes N,N             corpus sizes in posts (default 100000,1000000; up to 20000000, in whole
                          chunks of 250000 from 250000 on)
  --corpus-root DIR       keep each size's corpus in DIR/<size> (built chunk by chunk, resumable; a later
                          run reuses it and only rebuilds the index); without it each is thrown away
  --carry-size-free       take hashing and the webhook drain from bench/results.json (with their date and
                          commit) instead of measuring them: for a run that only adds a corpus size
  --page-view-seconds N   the page-view load (50 people) after each size's figures, N seconds measured
                          (default 0: none; the scale table's row wants 600 at the largest size)
  --quick                 a short smoke run: 20000 posts unless --sizes is given, fewer repetitions;
                          writes bench/RESULTS.quick.md and bench/results.quick.json
  --keep                  leave the data directories and indices in place (for poking at them)
  --only webhook-drain    measure only the webhook backlog drain; its result replaces that figure
                          in the existing results file (the other figures keep their run's numbers)
  --only SECTION          run one feature section (below) alone; its rows in RESULTS.md are replaced
                          (--sizes, when given, is passed to it; otherwise it picks its own size)
  --only core             the core figures above without the feature sections
  --drain-deliveries N    deliveries in the webhook drain (default 50000; 10000 with --quick)
  --drain-reps N          drains of ours between anchors (default 2; 1 with --quick)
  --drain-node-fetch      also drain with a node-fetch client, alternating with ours
                          (bench/lib/send-node-fetch.ts; the design's client, not used: issue 28)
`;

const commands = Object.entries(COMMANDS).map(([name, summary]) => `  ${name.padEnd(25)}${summary}`);
const HELP = `${USAGE}
Sections: ${Object.keys(SECTIONS).join(', ')}

Run on their own (npm run bench -- NAME [its flags], or --only NAME; NAME --help for its flags):
${commands.join('\n')}
`;

const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

function parse() {
  const { values } = parseCli({
    usage: HELP,
    options: {
      sizes: { type: 'string' },
      quick: { type: 'boolean' },
      keep: { type: 'boolean' },
      only: { type: 'string' },
      'drain-deliveries': { type: 'string' },
      'drain-reps': { type: 'string' },
      'drain-node-fetch': { type: 'boolean' },
      'corpus-root': { type: 'string' },
      'carry-size-free': { type: 'boolean' },
      'page-view-seconds': { type: 'string' },
    },
  });
  const quick = values.quick ?? false;
  const sizes =
    values.sizes === undefined
      ? defaults(quick).sizes
      : values.sizes.split(',').map((s) => Number(s.trim().replace(/_/g, '')));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1000 || n > 20_000_000 || (n > 250_000 && n % 250_000 !== 0))) {
    usageError(
      USAGE,
      '--sizes: expected comma-separated post counts from 1000 to 20000000 (whole chunks of 250000 above that)',
    );
  }
  const only = values.only;
  if (only !== undefined && only !== 'webhook-drain' && only !== 'core' && !(only in SECTIONS)) {
    usageError(HELP, '--only: expected webhook-drain, core, a section or one of the figures run on their own');
  }
  const drainDeliveries = numberArg(values['drain-deliveries'], defaults(quick).drainDeliveries);
  if (!Number.isInteger(drainDeliveries) || drainDeliveries < 100 || drainDeliveries > 1_000_000) {
    usageError(USAGE, '--drain-deliveries: expected a count from 100 to 1000000');
  }
  const drainReps = values['drain-reps'] === undefined ? undefined : Number(values['drain-reps']);
  if (drainReps !== undefined && (!Number.isInteger(drainReps) || drainReps < 1 || drainReps > 20)) {
    usageError(USAGE, '--drain-reps: expected a count from 1 to 20');
  }
  const pageViewSeconds = Number(values['page-view-seconds'] ?? '0');
  if (!Number.isInteger(pageViewSeconds) || pageViewSeconds < 0 || pageViewSeconds > 7200) {
    usageError(USAGE, '--page-view-seconds: expected seconds from 0 to 7200');
  }
  const corpusRoot = values['corpus-root'] === undefined ? undefined : path.resolve(values['corpus-root']);
  const drainCompare = values['drain-node-fetch'] ? { label: 'node-fetch', send: postWebhookNodeFetch } : undefined;
  return {
    quick,
    sizes,
    givenSizes: values.sizes !== undefined,
    keep: values.keep ?? false,
    only,
    drainDeliveries,
    drainReps,
    drainCompare,
    corpusRoot,
    pageViewSeconds,
    carrySizeFree: values['carry-size-free'] ?? false,
  };
}

/** Undo steps, run in reverse on success, failure and Ctrl-C alike. */
const cleanups: (() => Promise<void> | void)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()!();
    } catch (err) {
      log(`cleanup: ${(err as Error).message}`);
    }
  }
}

/** The page-view load on the corpus (bench/load/page-views.ts as a child process; its own server). */
async function pageViews(corpus: Corpus, seconds: number): Promise<PageViewFigure> {
  const label = `scale-${corpus.posts}`;
  const args = ['tsx', 'bench/load/page-views.ts', '--corpus', corpus.dir, '--posts', String(corpus.posts)];
  // The page-view load's people (issue 28): a mean of 2 s between actions, as every kept run of it.
  args.push('--seconds', String(seconds), '--warmup', '30', '--think-ms', '2000', '--label', label, '--no-append');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npx', args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
    child.on('exit', resolve);
  });
  if (code !== 0) throw new Error(`page views exited with ${code}`);
  const runs = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/load/pageviews.json'), 'utf8')) as {
    runs: Record<string, PageViewRun>;
  };
  return pageViewFigure(runs.runs[label]);
}

async function benchSize(
  size: number,
  p: RunParams,
  esUrl: string,
  images: Awaited<ReturnType<typeof generateImages>>,
  o: { keep: boolean; corpusRoot?: string; pageViewSeconds: number },
): Promise<SizeResults> {
  // The same corpus builder at every size (bench/load/corpus-build.ts), kept under --corpus-root or thrown away.
  const kept = o.corpusRoot !== undefined;
  const dir = kept ? path.join(o.corpusRoot!, String(size)) : tempDir(`corpus-${size}`);
  const out: SizeResults = { posts: size, seedSeconds: 0 };
  let services: ToolJob | undefined;
  let server: ServerProcess | undefined;
  let corpus: Corpus | undefined;
  const undo = async () => {
    await server?.stop();
    if (services && !kept && !o.keep && corpus)
      await services.es.indices.delete({ index: `${corpus.prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] });
    await services?.close();
    if (!kept && !o.keep) fs.rmSync(dir, { recursive: true, force: true });
  };
  cleanups.push(undo);
  try {
    log(`${size}: building (or resuming) the corpus in ${dir}`);
    corpus = await openCorpus({ dir, posts: size, esUrl, index: false });
    out.seedSeconds = corpus.seedSeconds;
    const env = corpus.env;
    // A job, not a server: the server process started below owns the DATA_DIR.
    services = await openToolJob(loadConfig(env), createLogger('warn'));
    const seed = { count: size, users: corpus.users, tags: corpus.tags, clusters: corpus.clusters };
    log(
      `${size}: seeded in ${out.seedSeconds.toFixed(1)} s; reindex x${p.reindexReps[String(size)]} against raw _bulk`,
    );
    out.reindex = await benchReindex(services, {
      reps: p.reindexReps[String(size)],
      log,
      rawDocs: size > 2_000_000 ? 1_000_000 : undefined,
    });
    markIndexed(corpus);
    out.storage = await storageFigures(services, env.DATA_DIR);

    log(`${size}: similar lookups`);
    out.similar = await benchSimilar(services, seed, p.similar);
    log(`${size}: robust lookups`);
    out.robust = await benchRobustScale(services, robustSamples(size));

    server = await startServerProcess(env);
    // The SQL anchor builds image URLs too; make them the server's, as the endpoint's are.
    services.config.mediaUrl = `${server.url}/media`;
    const idle = readRss(server.pid);
    log(`${size}: server pid ${server.pid} on ${server.url}; /api/post/search against SQL`);
    // Memory is sampled through both search phases: the figure is RSS "under the search load".
    let searchRss: RssSummary;
    const rssSearch = sampleRss(server.pid);
    const heap = sampleEsHeap(esUrl);
    try {
      out.search = await benchSearch(services, seed, server.url, p.search);
    } finally {
      searchRss = rssSearch.stop();
    }
    log(`${size}: /image/search with ${p.imageSearch.concurrency} clients`);
    let imageRss: RssSummary;
    const rssImage = sampleRss(server.pid);
    const esPid = await elasticsearchPid(esUrl);
    const serverPid = server.pid;
    try {
      out.imageSearch = await benchImageSearch(seed, server.url, {
        ...p.imageSearch,
        cpu: () => measureCpu(serverPid, esPid),
      });
      out.imageSearchCpu = out.imageSearch.cpu;
    } finally {
      imageRss = rssImage.stop();
    }
    out.memory = { ...mergeRss([searchRss, imageRss]), idleMiB: (idle?.rss ?? Number.NaN) / 2 ** 20 };
    log(`${size}: /image/search with facets against without`);
    // The raw-engine anchor: the endpoint's own engine calls for the same bodies, straight to Elasticsearch.
    const anchor = await facetsAnchor(services, seed, esUrl);
    out.facets = await benchFacets(seed, server.url, { ...p.facets!, anchor, cpuOf: { serverPid: server.pid, esPid } });
    out.esHeap = await heap.stop();
    log(`${size}: tag autocomplete against its SQL and a plain count`);
    out.tags = { ...(await benchTags(services.db, server.url, seed.tags, p.tags!)), tagNames: seed.tags.length };
    log(`${size}: /posts.json against /image/search`);
    const running = server;
    out.postsJson = await benchPostsJson(
      services,
      server.url,
      { serverPid: () => running.pid, env },
      { samples: p.search.samples, ms: p.search.repMs / 2, log },
    );
    log(`${size}: sustained whole uploads with ${p.upload.concurrency} clients against the same image work alone`);
    out.upload = await benchUpload(services, server.url, p.upload, { serverPid, esPid });
    await server.stop();
    server = undefined;
    if (o.pageViewSeconds > 0) {
      log(`${size}: page views, 50 people, ${o.pageViewSeconds} s`);
      out.pageViews = await pageViews(corpus, o.pageViewSeconds);
    }
  } catch (err) {
    out.error = (err as Error).stack ?? String(err);
    log(`${size}: FAILED: ${out.error}${server ? `\n--- server stderr ---\n${server.tail()}` : ''}`);
  } finally {
    cleanups.splice(cleanups.indexOf(undo), 1);
    await undo();
  }
  return out;
}

const resultFiles = (quick: boolean) =>
  quick
    ? { md: path.join(ROOT, 'bench', 'RESULTS.quick.md'), json: path.join(ROOT, 'bench', 'results.quick.json') }
    : { md: path.join(ROOT, 'bench', 'notes', 'core-run.md'), json: path.join(ROOT, 'bench', 'results.json') };

/** The run's JSON and its full report; a full run then rewrites the dashboard from the data. */
function write(results: RunResults, quick: boolean): { md: string; json: string } {
  const { md, json } = resultFiles(quick);
  fs.writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  if (quick) {
    const previous = fs.existsSync(md) ? fs.readFileSync(md, 'utf8') : '';
    fs.writeFileSync(md, withForeignSections(renderReport(results), previous));
  } else {
    fs.writeFileSync(md, renderReport(results));
    recordScale(results);
    writeDashboard();
  }
  return { md, json };
}

/** The drain alone: its result replaces that figure in the existing results; nothing else is measured. */
async function drainOnly(quick: boolean, p: RunParams, compare: WebhookDrainOptions['compare']): Promise<void> {
  const file = resultFiles(quick).json;
  const command = commandLine('npm run bench --');
  const results: RunResults = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults)
    : {
        mode: quick ? 'quick' : 'full',
        command,
        startedAt: new Date().toISOString(),
        machine: await machineInfo(''),
        params: p,
        sizes: [],
      };
  results.params.webhookDrain = p.webhookDrain;
  const loadAverage = os.loadavg().map((n) => Math.round(n * 100) / 100);
  log(
    `webhook drain alone: ${p.webhookDrain!.deliveries} deliveries to ${p.webhookDrain!.receivers} receivers; load average ${loadAverage.join(', ')}`,
  );
  try {
    results.webhookDrain = { ...(await benchWebhookDrain({ ...p.webhookDrain!, compare, log })), command, loadAverage };
    delete results.webhookDrainError;
    // Its row is dated by this measurement and its commit, not by the run the rest of the file came from.
    results.carried = {
      ...results.carried,
      'webhook-drain': { date: results.webhookDrain.measuredAt, commit: gitCommit() },
    };
  } catch (err) {
    results.webhookDrainError = (err as Error).stack ?? String(err);
    log(`webhook drain FAILED: ${results.webhookDrainError}`);
  }
  const files = write(results, quick);
  log(`wrote ${path.relative(ROOT, files.md)} and ${path.relative(ROOT, files.json)}`);
  process.exit(results.webhookDrainError ? 1 : 0);
}

/** The feature sections (all, or the one named), each written as soon as it ends; true when all succeeded. */
async function sections(names: string[], quick: boolean, sizes: number[] | undefined): Promise<boolean> {
  let ok = true;
  const command = commandLine('npm run bench --');
  for (const name of names) {
    const section = await SECTIONS[name]();
    log(`section ${name}: ${section.summary}`);
    try {
      const report = await runSection(section, { quick, sizes, log: (line) => log(`${name}: ${line}`) }, command);
      const files = writeSection(report, quick);
      if (!quick) writeDashboard();
      log(`section ${name}: wrote ${path.relative(ROOT, files.md)} and ${path.relative(ROOT, files.json)}`);
    } catch (err) {
      ok = false;
      log(`section ${name} FAILED: ${(err as Error).stack ?? err}`);
    }
  }
  return ok;
}

/** Hashing and the webhook drain: they need no corpus, so a run that only adds a size may carry them over. */
async function measureSizeFree(
  results: RunResults,
  images: Awaited<ReturnType<typeof generateImages>>,
  p: RunParams,
  drainCompare: WebhookDrainOptions['compare'],
): Promise<void> {
  log(`hashing: ${images.length} images x${p.hashing.passes} per repetition, ${p.hashing.reps} repetitions`);
  try {
    results.hashing = await benchHashing(images, p.hashing);
  } catch (err) {
    results.hashingError = (err as Error).stack ?? String(err);
    log(`hashing FAILED: ${results.hashingError}`);
  }
  // Needs no corpus and no Elasticsearch: SQLite, the dispatcher and loopback receivers.
  try {
    results.webhookDrain = {
      ...(await benchWebhookDrain({ ...p.webhookDrain!, compare: drainCompare, log })),
      command: results.command,
    };
  } catch (err) {
    results.webhookDrainError = (err as Error).stack ?? String(err);
    log(`webhook drain FAILED: ${results.webhookDrainError}`);
  }
}

/** `--carry-size-free`: hashing and the drain as bench/results.json holds them, with their own date and commit. */
function carryOver(results: RunResults): void {
  const file = resultFiles(false).json;
  if (!fs.existsSync(file)) throw new Error(`--carry-size-free: no ${file} to carry hashing and the drain from`);
  const previous = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
  const from = (key: string) =>
    previous.carried?.[key] ?? {
      date: (key === 'webhook-drain' && previous.webhookDrain?.measuredAt) || previous.startedAt,
      commit: previous.machine.commit,
    };
  results.hashing = previous.hashing;
  results.webhookDrain = previous.webhookDrain;
  results.params.hashing = previous.params.hashing;
  results.params.webhookDrain = previous.params.webhookDrain;
  results.carried = { hashing: from('hashing'), 'webhook-drain': from('webhook-drain') };
  log(`hashing and the webhook drain carried over from ${previous.startedAt}`);
}

async function main(): Promise<void> {
  const o = parse();
  const { quick, sizes, givenSizes, only, drainCompare } = o;
  const started = Date.now();
  const p = coreParams(quick, sizes, o.drainDeliveries);
  if (o.drainReps !== undefined) p.webhookDrain!.reps = o.drainReps;
  if (only === 'webhook-drain') return drainOnly(quick, p, drainCompare);
  if (only !== undefined && only !== 'core')
    process.exit((await sections([only], quick, givenSizes ? sizes : undefined)) ? 0 : 1);
  process.on('SIGINT', () => {
    log('interrupted: cleaning up');
    void cleanUp().finally(() => process.exit(130));
  });

  // The managed node (started if need be) or ELASTICSEARCH_URL, resolved once: this process and the
  // server process both use it.
  const esUrl = await benchElasticsearchUrl('info');
  const results: RunResults = {
    mode: quick ? 'quick' : 'full',
    // --corpus-root names a directory of this machine: the reports say DIR.
    command: scrubPaths(commandLine('npm run bench --').replace(/ --$/, '')),
    startedAt: new Date().toISOString(),
    machine: await machineInfo(esUrl),
    params: p,
    sizes: [],
  };
  log(
    `machine: ${results.machine.cpu}, ${results.machine.cores} cores, Elasticsearch ${results.machine.elasticsearch} at ${esUrl}`,
  );

  // Other work on the box (it is shared) shows up in the load average: kept with the results.
  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 5000);
  cleanups.push(() => clearInterval(loadTimer));

  const imageDir = tempDir('images');
  cleanups.push(() => fs.rmSync(imageDir, { recursive: true, force: true }));
  const images = await generateImages(imageDir, p.hashing.jpegs, p.hashing.pngs);
  try {
    if (o.carrySizeFree) carryOver(results);
    else await measureSizeFree(results, images, p, drainCompare);
    for (const size of sizes) {
      results.sizes.push(await benchSize(size, p, esUrl, images, o));
      // Written after every size, so a long run that dies later still leaves its earlier figures.
      write(results, quick);
      if (!quick) await writePlots();
    }
  } finally {
    results.finishedAt = new Date().toISOString();
    results.seconds = Math.round((Date.now() - started) / 1000);
    results.loadAverageEnd = os.loadavg().map((n) => Math.round(n * 100) / 100);
    if (loads.length) results.loadDuring = { median: median(loads), max: maxOf(loads), samples: loads.length };
    const files = write(results, quick);
    await cleanUp();
    log(`wrote ${path.relative(ROOT, files.md)} and ${path.relative(ROOT, files.json)} after ${results.seconds} s`);
  }
  const failed = results.hashingError || results.webhookDrainError || results.sizes.some((s) => s.error);
  // The sections pick their own corpus sizes (each states its own) unless --sizes names them.
  const sectionsOk = only === 'core' || (await sections(Object.keys(SECTIONS), quick, givenSizes ? sizes : undefined));
  process.exit(failed || !sectionsOk ? 1 : 0);
}

/** The suite with the process's flags; it ends the process with its exit status. */
export function runSuite(): void {
  main().catch(async (err) => {
    log(`failed: ${(err as Error).stack ?? err}`);
    await cleanUp();
    process.exit(1);
  });
}
