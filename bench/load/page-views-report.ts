/**
 * The page-view load's results (bench/load/page-views.ts): kept by label in bench/load/pageviews.json,
 * rendered into bench/notes/page-views.md; the dashboard (bench/dashboard.ts) takes its rows from the JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Machine } from '../lib/env.ts';
import { ROOT, scrubPaths } from '../lib/env.ts';
import { fmt } from '../lib/stats.ts';
import type { Mix } from './person.ts';

export interface MinuteRow {
  minute: number;
  pageViews: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  rssMedianMiB: number;
  serverCores: number;
  esCores: number;
  /** the box's 1-minute load average at the minute's end (the box is shared: other work shows here) */
  loadAverage?: number;
  /**
   * at the minute's end: resident anonymous and file-backed memory, threads; the main thread's V8 heap and external
   * memory (/metrics)
   */
  rssAnonMiB?: number;
  rssFileMiB?: number;
  threads?: number;
  heapTotalMiB?: number;
  heapUsedMiB?: number;
  externalMiB?: number;
}

type Summary = { n: number; p50: number; p90: number; p99: number; max: number; mean: number };

export interface PageViewRun {
  label: string;
  command: string;
  startedAt: string;
  machine: Machine;
  loadAverageEnd: number[];
  posts: number;
  clients: number;
  thinkMs: number;
  warmupSeconds: number;
  /** measured wall time (after the warm-up) */
  seconds: number;
  mix: Mix;
  queries: number;
  pageViews: Summary;
  byKind: Record<string, Summary & { errors: number; firstErrors: string[] }>;
  media: { full: number; notModified: number; bytes: number };
  cpu: { serverSeconds: number; esSeconds: number; loadGeneratorSeconds?: number };
  minutes: MinuteRow[];
  /** server RSS, one sample a second */
  rss: { s: number; mib: number }[];
  loadGeneratorRssMiB: number[];
}

const FILE = path.join(ROOT, 'bench/load/pageviews.json');
const ms = (v: number) => (Number.isFinite(v) ? `${fmt(v)} ms` : '—');
const mib = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} MiB` : '—');

/**
 * Per-minute medians of the last `minutes` minutes of RSS samples, their spread as a share of the lowest: flat means a
 * small spread.
 */
export function rssFlatness(run: PageViewRun, minutes = 10): { medians: number[]; spread: number } | undefined {
  const end = run.seconds;
  if (end < minutes * 60) return undefined;
  const medians: number[] = [];
  for (let m = minutes; m > 0; m--) {
    const xs = run.rss
      .filter((p) => p.s > end - m * 60 && p.s <= end - (m - 1) * 60)
      .map((p) => p.mib)
      .sort((x, y) => x - y);
    if (xs.length) medians.push(xs[xs.length >> 1]);
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of medians) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return { medians, spread: (hi - lo) / lo };
}

export function renderRun(r: PageViewRun): string {
  const views = r.pageViews.n;
  const errors = Object.values(r.byKind).reduce((n, k) => n + k.errors, 0);
  let peak = r.rss[0];
  for (const p of r.rss) if (p.mib > peak.mib) peak = p;
  const flat = rssFlatness(r);
  const lines = [
    `### ${r.label}`,
    '',
    `\`${scrubPaths(r.command)}\`, started ${r.startedAt} (commit ${r.machine.commit}, Node ${r.machine.node}, Elasticsearch ${r.machine.elasticsearch} with ${r.machine.elasticsearchHeap} heap; load average ${r.machine.loadAverage.length ? `${r.machine.loadAverage.join(' / ')} at the start, ` : ''}${r.loadAverageEnd.join(' / ')} at the end).`,
    '',
    `${r.clients} people, ${r.thinkMs ? `exponential think time of ${r.thinkMs} ms mean between actions` : 'no think time (each starts the next action when the last ends)'}, ${r.warmupSeconds} s warm-up not counted, then ${fmt(r.seconds)} s measured on ${r.posts.toLocaleString('en')} posts. ` +
      `**${views.toLocaleString('en')} page views, ${fmt(views / r.seconds)} page views/s, p50 ${ms(r.pageViews.p50)}, p99 ${ms(r.pageViews.p99)}, ${errors} errors.** ` +
      `CPU per page view (the writes' share included): server ${ms((1000 * r.cpu.serverSeconds) / views)}, Elasticsearch ${ms((1000 * r.cpu.esSeconds) / views)}${r.cpu.loadGeneratorSeconds !== undefined ? `, the load generator ${ms((1000 * r.cpu.loadGeneratorSeconds) / views)}` : ''} (server ${fmt(r.cpu.serverSeconds / r.seconds)} cores, Elasticsearch ${fmt(r.cpu.esSeconds / r.seconds)} cores on average). ` +
      `Media: ${r.media.full.toLocaleString('en')} full answers (${fmt(r.media.bytes / 2 ** 20)} MiB), ${r.media.notModified.toLocaleString('en')} 304s to If-None-Match.`,
    '',
    '| action | count | per s | p50 | p90 | p99 | max | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...Object.entries(r.byKind).map(
      ([k, s]) =>
        `| ${k} | ${s.n.toLocaleString('en')} | ${fmt(s.n / r.seconds)} | ${ms(s.p50)} | ${ms(s.p90)} | ${ms(s.p99)} | ${ms(s.max)} | ${s.errors} |`,
    ),
    '',
    `Server RSS (sampled every second): peak ${mib(peak?.mib ?? Number.NaN)} at ${fmt(peak?.s ?? Number.NaN)} s; per-minute medians ${r.minutes.map((m) => Math.round(m.rssMedianMiB)).join(', ')} MiB` +
      (flat
        ? `; over the last 10 minutes the per-minute medians stay within ${fmt(100 * flat.spread, 2)} % of their lowest (${flat.medians.map(Math.round).join(', ')} MiB).`
        : '.'),
    `Load generator RSS at each minute: ${r.loadGeneratorRssMiB.map(Math.round).join(', ')} MiB.`,
  ];
  const firsts = Object.entries(r.byKind).filter(([, s]) => s.firstErrors.length);
  if (firsts.length)
    lines.push('', 'First errors:', ...firsts.flatMap(([k, s]) => s.firstErrors.map((e) => `- ${k}: ${e}`)));
  lines.push(
    '',
    '<details><summary>Per minute</summary>',
    '',
    '| minute | load average | page views/s | p50 | p99 | errors | server RSS (median) | anon / file at the end | main-thread V8 heap used / total, external | threads | server cores | ES cores |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.minutes.map(
      (m) =>
        `| ${m.minute} | ${m.loadAverage !== undefined ? fmt(m.loadAverage) : '—'} | ${fmt(m.perSecond)} | ${ms(m.p50)} | ${ms(m.p99)} | ${m.errors} | ${mib(m.rssMedianMiB)} | ${mib(m.rssAnonMiB ?? Number.NaN)} / ${mib(m.rssFileMiB ?? Number.NaN)} | ${mib(m.heapUsedMiB ?? Number.NaN)} / ${mib(m.heapTotalMiB ?? Number.NaN)}, ${mib(m.externalMiB ?? Number.NaN)} | ${m.threads ?? '—'} | ${fmt(m.serverCores)} | ${fmt(m.esCores)} |`,
    ),
    '',
    '</details>',
    '',
  );
  return lines.join('\n');
}

export function renderPageViews(run: PageViewRun): string {
  return renderRun(run);
}

/** Keeps the run under its label and, unless told not to, rewrites bench/notes/page-views.md with every kept run. */
export function writePageViews(run: PageViewRun, o: { appendToResults: boolean }): void {
  const kept = fs.existsSync(FILE)
    ? (JSON.parse(fs.readFileSync(FILE, 'utf8')) as { runs: Record<string, PageViewRun> })
    : { runs: {} };
  kept.runs[run.label] = run;
  fs.writeFileSync(FILE, `${JSON.stringify(kept)}\n`);
  if (!o.appendToResults) return;
  const intro =
    '# Page views (issue 28)\n\n' +
    '<!-- Written by bench/load/page-views.ts from bench/load/pageviews.json; ' +
    'an edit by hand is lost at the next run. -->\n\n' +
    'Every kept run of `bench/load/page-views.ts`, by label; raw figures in ' +
    '[../load/pageviews.json](../load/pageviews.json). ' +
    'The dashboard shows the latest run of 30 minutes or more. `--corpus DIR` is a corpus kept by `bench/load/corpus.ts`.\n\n';
  const runs = Object.values(kept.runs).map(renderRun).join('\n');
  fs.writeFileSync(path.join(ROOT, 'bench/notes/page-views.md'), `${intro}${runs}`);
}
