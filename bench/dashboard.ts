/**
 * bench/RESULTS.md, the dashboard: one table of the current figures, each row taken from the latest
 * run that measured it (with that run's date and commit), then what bounds the misses and how to
 * reproduce. Nothing in it is written by hand: `npx tsx bench/dashboard.ts` rewrites it from the data,
 * and every bench that records a run calls `writeDashboard()` after it (a full `npm run bench`, any
 * `--only` of it, bench/load/page-views.ts, bench/load/run.ts, `bench/facets-only.ts --record`).
 * `--quick` runs never do: they write bench/RESULTS.quick.md.
 *
 * The data, read in this order (a figure keeps the place of its first appearance):
 * - bench/results.json: the core figures of the last full `npm run bench` (report.ts builds the rows);
 * - bench/load/pageviews.json: the page-view load (the latest 30-minute run);
 * - bench/load/results.json: the mixed load (bench/load/run.ts);
 * - bench/recorded.json: rows recorded by standalone benches, and the figures carried over from the
 *   notebook this file used to be (each with the date and commit of its run, or the commit that
 *   recorded it where the run's is unknown);
 * - bench/sections/NAME.json: the feature sections of `npm run bench`.
 * The text under "What bounds the misses" comes from bench/notes/misses.md, by figure key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib/env.ts';
import { fmt } from './lib/stats.ts';
import { rssFlatness, type PageViewRun } from './load/page-views-report.ts';
import type { FacetsResult } from './image-search.ts';
import type { UploadResult } from './upload.ts';
import { rowsFor, sizeRows, type Row } from './report.ts';
import type { RunResults } from './results.ts';
import { renderScale } from './scale.ts';
import type { SectionReport } from './lib/section.ts';
import { isMain, parseCli } from './lib/cli.ts';

export type Met = 'met' | 'missed' | 'none' | 'failed' | 'ref-met' | 'ref-missed';

export interface DashboardRow {
  /** the figure's identity across runs, with its corpus size (e.g. `facets@1M`) */
  key: string;
  figure: string;
  ours: string;
  anchor: string;
  ratio: string;
  goal: string;
  met: Met;
  /** when the run started (ISO 8601) */
  date: string;
  /** `git rev-parse --short HEAD` of the checkout measured, or 'unknown' */
  commit: string;
  /** where the method and the detail are, relative to bench/ */
  notes?: string;
}

export interface RecordedFile {
  about: string;
  rows: DashboardRow[];
}

const BENCH = path.join(ROOT, 'bench');
export const RECORDED = path.join(BENCH, 'recorded.json');
const readJson = <T>(file: string): T | undefined =>
  fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : undefined;

const MARK: Record<Met, string> = {
  met: '✅',
  missed: '❌',
  none: '—',
  failed: '⚠️ not measured',
  'ref-met': '(✅)¹',
  'ref-missed': '(❌)¹',
};
const VERDICT: Record<Row['verdict'], Met> = {
  met: 'met',
  missed: 'missed',
  'ref-met': 'ref-met',
  'ref-missed': 'ref-missed',
  failed: 'failed',
  info: 'none',
};

const withCorpus = (figure: string, corpus: string) =>
  corpus === '—' || corpus === '' ? figure : `${figure} (${corpus}${/^\d+(\.\d+)?[kM]$/.test(corpus) ? ' posts' : ''})`;
export const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
const MB = 2 ** 20 / 1e6;

/** A report row's cells as the dashboard shows them. */
const cellsOf = (r: Row) => ({
  key: r.key,
  figure: withCorpus(r.figure, r.corpus),
  ours: r.ours,
  anchor: r.anchors,
  ratio: r.ratio,
  goal: r.goal,
  met: VERDICT[r.verdict],
});

export function coreRows(results: RunResults): DashboardRow[] {
  return rowsFor(results).map((r) => ({
    ...cellsOf(r),
    date:
      results.carried?.[r.key]?.date ??
      ((r.key === 'webhook-drain' && results.webhookDrain?.measuredAt) || results.startedAt),
    commit: results.carried?.[r.key]?.commit ?? results.machine.commit,
    notes: 'notes/core-run.md',
  }));
}

/** The page-view figures from the latest run of 30 minutes or more (shorter runs are experiments). */
export function pageViewRows(runs: PageViewRun[]): DashboardRow[] {
  const long = runs.filter((r) => r.seconds >= 1790).sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const r = long.at(-1);
  if (!r) return [];
  const errors = Object.values(r.byKind).reduce((n, k) => n + k.errors, 0);
  let peak = 0;
  for (const p of r.rss) peak = Math.max(peak, p.mib);
  const flat = rssFlatness(r);
  const corpus = sizeLabel(r.posts);
  const base = { date: r.startedAt, commit: r.machine.commit, notes: 'notes/page-views.md' };
  return [
    {
      ...base,
      key: `page-views@${corpus}`,
      figure: `Page views, ${r.clients} people, ${Math.round(r.seconds / 60)} minutes (${corpus} posts)`,
      ours:
        `${r.pageViews.n.toLocaleString('en-US')} page views, ${fmt(r.pageViews.n / r.seconds)}/s, ` +
        `p50 ${fmt(r.pageViews.p50)} ms, p99 ${fmt(r.pageViews.p99)} ms, ${errors} errors`,
      anchor: '—',
      ratio: '—',
      goal: 'p99 ≤ 300 ms, 0 errors',
      met: r.pageViews.p99 <= 300 && errors === 0 ? 'met' : 'missed',
    },
    {
      ...base,
      key: `server-rss@${corpus}`,
      figure: `Server RSS under the page-view load (${corpus} posts)`,
      ours:
        `peak ${fmt(peak * MB)} MB (${fmt(peak)} MiB)` +
        (flat ? `; last 10 minutes' per-minute medians within ${fmt(100 * flat.spread, 2)} %` : ''),
      anchor: '—',
      ratio: '—',
      goal: '≤ 250 MB; flat within 5 % over the last 10 minutes',
      met: peak * MB <= 250 && flat !== undefined && flat.spread <= 0.05 ? 'met' : 'missed',
    },
  ];
}

interface LoadReport {
  startedAt: string;
  seconds: number;
  clients: number;
  posts: number;
  machine: { commit: string };
  endpoints: { name: string; n: number; p50: number; p99: number; errors: number }[];
  fanOut: { expected: number; delivered: number; lagP99: number };
}

/** Round 1's mixed-load throughput, which issue 16's goal is stated against (an earlier run, not an anchor). */
const ROUND1_MIXED_RPS = 219;
const READS = ['GET /api/post/:id', 'GET /api/post/', 'POST /api/post/search', 'POST /image/search'];

export function mixedLoadRows(l: LoadReport): DashboardRow[] {
  const corpus = sizeLabel(l.posts);
  const what = `mixed load, ${l.clients} clients, ${Math.round(l.seconds / 60)} min`;
  const base = { date: l.startedAt, commit: l.machine.commit, anchor: '—', ratio: '—', notes: 'notes/issue-16.md' };
  const total = l.endpoints.reduce((n, e) => n + e.n, 0);
  const errors = l.endpoints.reduce((n, e) => n + e.errors, 0);
  const rps = total / l.seconds;
  const upload = l.endpoints.find((e) => e.name === 'POST /api/post/');
  const reads = l.endpoints.filter((e) => READS.includes(e.name));
  const rows: DashboardRow[] = [
    {
      ...base,
      key: `mixed-load-throughput@${corpus}`,
      figure: `Throughput, ${what} (${corpus} posts)`,
      ours: `${fmt(rps)} req/s, ${errors} errors`,
      ratio: `${fmt(rps / ROUND1_MIXED_RPS)}× round 1`,
      goal: `≥ 1.5× round 1's ${ROUND1_MIXED_RPS} req/s`,
      met: rps >= 1.5 * ROUND1_MIXED_RPS && errors === 0 ? 'met' : 'missed',
    },
  ];
  if (upload)
    rows.push({
      ...base,
      key: `mixed-load-upload@${corpus}`,
      figure: `Upload p50, ${what} (${corpus} posts)`,
      ours: `p50 ${fmt(upload.p50)} ms, p99 ${fmt(upload.p99)} ms`,
      goal: 'p50 ≤ 300 ms',
      met: upload.p50 <= 300 ? 'met' : 'missed',
    });
  if (reads.length)
    rows.push({
      ...base,
      key: `mixed-load-reads@${corpus}`,
      figure: `Read p99 (get / list / post search / image search), ${what} (${corpus} posts)`,
      ours: reads.map((e) => `${fmt(e.p99)}`).join(' / ') + ' ms',
      goal: '≤ 250 ms each',
      met: reads.every((e) => e.p99 <= 250) ? 'met' : 'missed',
    });
  rows.push({
    ...base,
    key: `mixed-load-webhook-lag@${corpus}`,
    figure: `Webhook lag, ${what} (${corpus} posts)`,
    ours:
      `p99 ${fmt(l.fanOut.lagP99)} ms; ${l.fanOut.delivered.toLocaleString('en-US')} of ` +
      `${l.fanOut.expected.toLocaleString('en-US')} events delivered`,
    goal: 'p99 ≤ 2 s, every event delivered',
    met: l.fanOut.lagP99 <= 2000 && l.fanOut.delivered === l.fanOut.expected ? 'met' : 'missed',
  });
  return rows;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

export function sectionRows(r: SectionReport): DashboardRow[] {
  return r.rows.map((x) => ({
    key: `${r.name}:${slug(x.figure)}`,
    figure: withCorpus(x.figure, x.corpus),
    ours: x.ours,
    anchor: x.anchor,
    ratio: x.ratio,
    goal: x.goal,
    met: x.met,
    date: r.measuredAt,
    commit: r.commit ?? 'unknown',
    notes: `notes/${r.name}.md`,
  }));
}

/**
 * The rows of a `bench/facets-only.ts` run: the facets figure and the raw-engine anchor, as a full run
 * has them, and the `/image/search` throughput (its "without facets" windows are the same request mix
 * at the same 50 clients as that figure's).
 */
export function facetsOnlyRows(f: FacetsResult, posts: number, date: string, commit: string): DashboardRow[] {
  const corpus = sizeLabel(posts);
  const base = { date, commit, notes: 'notes/image-search.md' };
  const rows: DashboardRow[] = sizeRows({ posts, seedSeconds: 0, facets: f })
    .filter((r) => r.key.startsWith('facets@') || r.key.startsWith('image-search-vs-engine@'))
    .map((r) => ({ ...base, ...cellsOf(r) }));
  const t = f.withoutThroughput;
  rows.push({
    ...base,
    key: `image-search-throughput@${corpus}`,
    figure:
      `\`/image/search\` throughput (HTTP, ${f.concurrency} clients; the facets run's windows without facets) ` +
      `(${corpus} posts)`,
    ours: `${fmt(t.median)} req/s (${fmt(t.min)}–${fmt(t.max)}), ${f.errors} errors`,
    anchor: '—',
    ratio: '—',
    goal: '≥ 500 req/s, 0 errors',
    met: t.median >= 500 && f.errors === 0 ? 'met' : 'missed',
  });
  return rows;
}

/** The upload figure measured on its own (`npm run bench -- whole-uploads --record`): its row, for recorded.json. */
export function uploadRows(u: UploadResult, posts: number, date: string, commit: string): DashboardRow[] {
  return sizeRows({ posts, seedSeconds: 0, upload: u })
    .filter((r) => r.key.startsWith('upload@'))
    .map((r) => ({ date, commit, notes: 'notes/whole-uploads.md', ...cellsOf(r) }));
}

/** Every row the data holds, in reading order; several may share a key. */
export function collectRows(dir = BENCH): DashboardRow[] {
  const rows: DashboardRow[] = [];
  const core = readJson<RunResults>(path.join(dir, 'results.json'));
  if (core) rows.push(...coreRows(core));
  const pv = readJson<{ runs: Record<string, PageViewRun> }>(path.join(dir, 'load', 'pageviews.json'));
  if (pv) rows.push(...pageViewRows(Object.values(pv.runs)));
  const load = readJson<LoadReport>(path.join(dir, 'load', 'results.json'));
  if (load) rows.push(...mixedLoadRows(load));
  const recorded = readJson<RecordedFile>(path.join(dir, 'recorded.json'));
  if (recorded) rows.push(...recorded.rows);
  const sections = path.join(dir, 'sections');
  if (fs.existsSync(sections))
    for (const f of fs
      .readdirSync(sections)
      .filter((f) => f.endsWith('.json'))
      .sort())
      rows.push(...sectionRows(JSON.parse(fs.readFileSync(path.join(sections, f), 'utf8')) as SectionReport));
  return rows;
}

/** The order of the table by key (before its `@size`); other keys follow in reading order. */
const ORDER = [
  'hashing',
  'robust-hashing',
  'webhook-drain',
  'similar-8',
  'similar-3',
  'robust-lookup',
  'robust-recall',
  'robust-false-matches',
  'post-search-latency',
  'post-search-throughput',
  'image-search-throughput',
  'image-search-vs-engine',
  'facets',
  'tag-autocomplete',
  'upload',
  'import',
  'reindex',
  'page-views',
  'server-rss',
];
const rank = (key: string) => {
  const i = ORDER.indexOf(key.split('@')[0]);
  return i < 0 ? ORDER.length : i;
};

/** One row per key: the one with the latest date; in ORDER, then where the key first appears. */
export function latest(rows: DashboardRow[]): DashboardRow[] {
  const best = new Map<string, DashboardRow>();
  for (const r of rows) {
    const seen = best.get(r.key);
    if (!seen || Date.parse(r.date) >= Date.parse(seen.date)) best.set(r.key, r);
  }
  const order = [...new Set(rows.map((r) => r.key))];
  return order.map((k) => best.get(k)!).sort((a, b) => rank(a.key) - rank(b.key));
}

/**
 * The hand-written notes on the misses: list items of bench/notes/misses.md that start with one or
 * more figure keys in backticks, e.g. "- `similar-8@1M`, `similar-3@1M`: …".
 */
export function parseMissNotes(md: string): Map<string, string> {
  const notes = new Map<string, string>();
  for (const item of md.split(/\n(?=- `)/)) {
    const m = /^- ((?:`[^`]+`(?:, )?)+): ([\s\S]*)$/.exec(item.trim());
    if (!m) continue;
    for (const key of m[1].match(/`[^`]+`/g) ?? []) notes.set(key.slice(1, -1), m[2].trim().replace(/\s*\n\s*/g, ' '));
  }
  return notes;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const shortCommit = (c: string) => {
  const head = c.split(/\s/)[0] || 'unknown';
  return /uncommitted|\(/.test(c.slice(head.length)) ? `${head}*` : head;
};

export function renderDashboard(rows: DashboardRow[], missNotes: Map<string, string>): string {
  const current = latest(rows);
  const out = [
    '# Benchmark results',
    '',
    '<!-- Written by bench/dashboard.ts from the data files; an edit by hand is lost at the next run. -->',
    '',
    "Each row is the latest run that measured the figure, with that run's date and commit: rows come from the files a",
    'bench writes when it records a run (see [notes/README.md](notes/README.md)); ' +
      '`npx tsx bench/dashboard.ts` rewrites this file.',
    '',
    '| figure | ours | anchor in the same run | ratio | goal | met? | date | commit |',
    '|---|---|---|---|---|---|---|---|',
    ...current.map(
      (r) =>
        `| ${[
          r.notes ? `${r.figure} · [notes](${r.notes})` : r.figure,
          r.ours,
          r.anchor,
          r.ratio,
          r.goal,
          MARK[r.met],
          r.date.slice(0, 10),
          shortCommit(r.commit),
        ]
          .map(cell)
          .join(' | ')} |`,
    ),
    '',
    'Throughputs: median of the repetitions (min–max in brackets). Latencies: percentiles over the samples. ' +
      'Ratios: ours ÷ anchor for throughputs, anchor ÷ ours for latencies. ' +
      'Commit: `*` marks a run with uncommitted changes. The box is 2 shared cores: absolute numbers move ' +
      'between runs; the ratio to an anchor of the same run is the figure to read.',
  ];
  if (current.some((r) => r.met.startsWith('ref')))
    out.push('', '¹ The goal is stated at 1M posts; at this size it is shown for reference only.');
  const misses = current.filter((r) => r.met === 'missed' || r.met === 'ref-missed' || r.met === 'failed');
  out.push('', ...renderScale());
  out.push('## What bounds the misses', '');
  if (misses.length === 0) out.push('Every goal is met.');
  // Figures that share a note are listed together under it.
  const byNote = new Map<string, DashboardRow[]>();
  for (const r of misses) {
    const note = missNotes.get(r.key) ?? `no note yet: add one for \`${r.key}\` to bench/notes/misses.md.`;
    byNote.set(note, [...(byNote.get(note) ?? []), r]);
  }
  for (const [note, rs] of byNote) out.push(`- ${rs.map((r) => `**${r.figure}** (\`${r.key}\`)`).join('; ')}: ${note}`);
  out.push(
    '',
    '## Reproduce',
    '',
    'Needs a JDK 17+ and Maven for the managed Elasticsearch node (started on 127.0.0.1:9277 if not running), ' +
      'or `ELASTICSEARCH_URL`.',
    '',
    '```sh',
    'npm run bench                       # core figures at 100k and 1M posts, then the sections; rewrites this file',
    'npm run bench -- --only community   # one section (or core, s3-store, webhook-drain); rewrites this file',
    'npm run bench -- --quick            # smoke run at 20k posts: writes RESULTS.quick.md, leaves this file alone',
    '# the scale table: kept corpora (resumable builds), then 10 minutes of page views at each size',
    'npm run bench -- --only core --sizes 100000,1000000,10000000 --corpus-root /srv/corpora --page-view-seconds 600',
    '```',
    '',
  );
  return out.join('\n');
}

export function writeDashboard(dir = BENCH): string {
  const file = path.join(dir, 'RESULTS.md');
  const missesFile = path.join(dir, 'notes', 'misses.md');
  const notes = parseMissNotes(fs.existsSync(missesFile) ? fs.readFileSync(missesFile, 'utf8') : '');
  fs.writeFileSync(file, renderDashboard(collectRows(dir), notes));
  return file;
}

/** Adds rows to bench/recorded.json, replacing earlier rows of the same keys. */
export function recordRows(rows: DashboardRow[], file = RECORDED): void {
  const kept = readJson<RecordedFile>(file) ?? { about: '', rows: [] };
  const keys = new Set(rows.map((r) => r.key));
  kept.rows = [...kept.rows.filter((r) => !keys.has(r.key)), ...rows];
  fs.writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
}

if (isMain(import.meta.url)) {
  parseCli({ usage: 'Usage: npx tsx bench/dashboard.ts   (rewrites bench/RESULTS.md from the data)\n' });
  const file = writeDashboard();
  process.stderr.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
