/**
 * How every core figure grows with the corpus (issue 41): each size a run of `npm run bench` measured is kept
 * in bench/scale.json with its date and commit (a later run of the same size replaces it), and the dashboard
 * shows them as one table with the growth from 1M to 10M and a log-log plot per figure (bench/plots/*.svg,
 * drawn by Vega-Lite).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { ROOT } from './lib/env.ts';
import { fmt } from './lib/stats.ts';
import type { PageViewRun } from './load/page-views-report.ts';
import type { RunResults, SizeResults } from './results.ts';
import { pageViewFigure } from './scale-figures.ts';

const FILE = path.join(ROOT, 'bench', 'scale.json');
const PLOTS = path.join(ROOT, 'bench', 'plots');
/** The size the goals are stated at. */
export const GOAL_SIZE = 10_000_000;

/** One size's figures: series name → value, per figure key. */
export interface ScaleSize {
  date: string;
  commit: string;
  posts: number;
  values: Record<string, Record<string, number>>;
  /** figures measured by a run of their own (`--page-views`), with its date and commit */
  separately?: Record<string, { date: string; commit: string }>;
}

interface Series {
  name: string;
  pick: (s: SizeResults) => number | undefined;
}

interface ScaleFigure {
  key: string;
  label: string;
  unit: string;
  /** the series; the first is ours (the growth factor is its) */
  series: Series[];
  /** how a cell reads: ours, then the anchors and the ratio */
  cell: (v: Record<string, number>) => string;
  goal?: { text: string; met: (v: Record<string, number>) => boolean };
}

const n = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? undefined : v);
const ms = (v: number) => `${fmt(v)} ms`;
const pct = (v: number) => `${fmt(100 * v)} %`;
const MB = 1e6;
const MiB = 2 ** 20;

export const FIGURES: ScaleFigure[] = [
  {
    key: 'seed',
    label: 'Seeding the corpus (SQLite, with votes, comments, favorites, pools, descriptors)',
    unit: 'seconds',
    series: [{ name: 'seconds', pick: (s) => n(s.seedSeconds || undefined) }],
    cell: (v) => `${fmt(v.seconds)} s (${fmt(v.posts / v.seconds)} posts/s)`,
  },
  {
    key: 'reindex',
    label: '`imgpost reindex` against raw `_bulk`',
    unit: 'docs/s',
    series: [
      { name: 'ours', pick: (s) => n(s.reindex?.ours.median) },
      { name: 'raw _bulk', pick: (s) => n(s.reindex?.raw.median) },
    ],
    cell: (v) => `${fmt(v.ours)} docs/s; raw ${fmt(v['raw _bulk'])}: ${pct(v.ours / v['raw _bulk'])}`,
    goal: { text: '≥ 80 % of raw `_bulk`', met: (v) => v.ours / v['raw _bulk'] >= 0.8 },
  },
  {
    key: 'image-search',
    label: '`/image/search`, 50 clients, against the raw engine (without facets)',
    unit: 'req/s',
    series: [
      { name: 'ours', pick: (s) => n(s.facets?.withoutThroughput.median) },
      { name: 'raw engine', pick: (s) => n(s.facets?.anchorWithoutThroughput?.median) },
    ],
    cell: (v) => `${fmt(v.ours)} req/s; engine ${fmt(v['raw engine'])}: ${pct(v.ours / v['raw engine'])}`,
    goal: { text: '≥ 85 % of the raw engine', met: (v) => v.ours / v['raw engine'] >= 0.85 },
  },
  {
    key: 'image-search-facets',
    label: '`/image/search` with facets, 50 clients, against the raw engine',
    unit: 'req/s',
    series: [
      { name: 'ours', pick: (s) => n(s.facets?.withThroughput.median) },
      { name: 'raw engine', pick: (s) => n(s.facets?.anchorWithThroughput?.median) },
    ],
    cell: (v) => `${fmt(v.ours)} req/s; engine ${fmt(v['raw engine'])}: ${pct(v.ours / v['raw engine'])}`,
    goal: { text: '≥ 85 % of the raw engine', met: (v) => v.ours / v['raw engine'] >= 0.85 },
  },
  {
    key: 'image-search-p99',
    label: '`/image/search` at 1 client, p99 (without / with facets)',
    unit: 'ms',
    series: [
      { name: 'without', pick: (s) => n(s.facets?.without.p99) },
      { name: 'with facets', pick: (s) => n(s.facets?.with.p99) },
    ],
    cell: (v) => `${ms(v.without)} / ${ms(v['with facets'])}`,
    goal: { text: 'p99 ≤ 100 ms', met: (v) => Math.max(v.without, v['with facets']) <= 100 },
  },
  {
    key: 'post-search',
    label: '`/api/post/search` at 1 client (p50 / p99; SQL p99)',
    unit: 'ms',
    series: [
      { name: 'p99', pick: (s) => n(s.search?.ours.p99) },
      { name: 'p50', pick: (s) => n(s.search?.ours.p50) },
      { name: 'SQL p99', pick: (s) => n(s.search?.sql.p99) },
    ],
    cell: (v) => `${ms(v.p50)} / ${ms(v.p99)}; SQL p99 ${ms(v['SQL p99'])}`,
    goal: { text: 'p99 ≤ 50 ms', met: (v) => v.p99 <= 50 },
  },
  ...[8, 3].map(
    (d): ScaleFigure => ({
      key: `similar-${d}`,
      label: `Similar lookup, maxDiff ${d}, against the popcount scan (p50 / p99)`,
      unit: 'ms',
      series: [
        { name: 'p99', pick: (s) => n(s.similar?.rows.find((r) => r.maxDiff === d)?.ours.p99) },
        { name: 'p50', pick: (s) => n(s.similar?.rows.find((r) => r.maxDiff === d)?.ours.p50) },
        { name: 'scan p99', pick: (s) => n(s.similar?.popcountScan.p99) },
        { name: 'scan p50', pick: (s) => n(s.similar?.popcountScan.p50) },
      ],
      cell: (v) => `${ms(v.p50)} / ${ms(v.p99)}; scan ${ms(v['scan p50'])} / ${ms(v['scan p99'])}`,
      goal: {
        text: 'p99 ≤ 20 ms, faster than the scan at p50 and p99',
        met: (v) => v.p99 <= 20 && v.p50 < v['scan p50'] && v.p99 < v['scan p99'],
      },
    }),
  ),
  {
    key: 'robust',
    label: 'Robust lookup against the scan of every descriptor (p50 / p99; scan sampled)',
    unit: 'ms',
    series: [
      { name: 'p99', pick: (s) => n(s.robust?.ours.p99) },
      { name: 'p50', pick: (s) => n(s.robust?.ours.p50) },
      { name: 'scan p50', pick: (s) => n(s.robust?.scan.p50) },
    ],
    cell: (v) => `${ms(v.p50)} / ${ms(v.p99)}; scan p50 ${ms(v['scan p50'])}`,
    goal: { text: 'p99 ≤ 100 ms', met: (v) => v.p99 <= 100 },
  },
  {
    key: 'autocomplete',
    label: 'Tag autocomplete at 1 client (p50 / p99)',
    unit: 'ms',
    series: [
      { name: 'p99', pick: (s) => n(s.tags?.ours.p99) },
      { name: 'p50', pick: (s) => n(s.tags?.ours.p50) },
    ],
    cell: (v) => `${ms(v.p50)} / ${ms(v.p99)}`,
    goal: { text: 'p99 ≤ 10 ms', met: (v) => v.p99 <= 10 },
  },
  {
    key: 'posts-json',
    label: '`/posts.json` (2 tags, 20 a page) against `/image/search`, 50 clients',
    unit: 'req/s',
    series: [
      { name: 'ours', pick: (s) => n(s.postsJson?.booru.rps) },
      { name: '/image/search', pick: (s) => n(s.postsJson?.search.rps) },
    ],
    cell: (v) => `${fmt(v.ours)} req/s; /image/search ${fmt(v['/image/search'])}: ${fmt(v.ours / v['/image/search'])}×`,
  },
  {
    key: 'page-views',
    label: 'Page views, 50 people (p50 / p99; errors)',
    unit: 'ms',
    series: [
      { name: 'p99', pick: (s) => n(s.pageViews?.p99) },
      { name: 'p50', pick: (s) => n(s.pageViews?.p50) },
    ],
    cell: (v) => `${ms(v.p50)} / ${ms(v.p99)}; ${v.errors} errors; ${fmt(v.seconds / 60)} min, ${fmt(v.perSecond)}/s`,
    goal: {
      text: 'p99 ≤ 300 ms, 0 errors (10 minutes)',
      met: (v) => v.p99 <= 300 && v.errors === 0 && v.seconds >= 600,
    },
  },
  {
    key: 'rss',
    label: 'Server RSS under the page views (peak; spread of the per-minute medians)',
    unit: 'MB',
    series: [{ name: 'peak', pick: (s) => n(s.pageViews && (s.pageViews.rssPeakMiB * MiB) / MB) }],
    cell: (v) => `${fmt(v.peak)} MB; ${pct(v.spread)} over ${v.rssMinutes} min`,
    goal: { text: '≤ 250 MB, flat within 5 % (10 minutes)', met: (v) => v.peak <= 250 && v.spread <= 0.05 },
  },
  {
    key: 'bytes-per-post',
    label: 'Bytes per post on disk (SQLite / Elasticsearch)',
    unit: 'bytes',
    series: [
      { name: 'SQLite', pick: (s) => n(s.storage?.sqliteBytesPerPost) },
      { name: 'Elasticsearch', pick: (s) => n(s.storage?.esBytesPerPost) },
    ],
    cell: (v) => `${fmt(v.SQLite)} / ${fmt(v.Elasticsearch)}`,
  },
  {
    key: 'es-heap',
    label: 'Elasticsearch heap used under the search load (max)',
    unit: 'MiB',
    series: [{ name: 'max', pick: (s) => n(s.esHeap?.maxMiB) }],
    cell: (v) => `${fmt(v.max)} MiB of ${fmt(v.heapMax)}`,
  },
  {
    key: 'upload',
    // Runs before issue 50 measured a burst against hashing alone; since, sustained whole uploads
    // against the same image work alone (the faster of its two windows).
    label: 'Uploads, 8 clients, against their anchor (before issue 50: a burst against hashing alone)',
    unit: 'per s',
    series: [
      { name: 'ours', pick: (s) => n(s.upload?.uploads.median) },
      {
        name: 'anchor',
        pick: (s) => n(s.upload && (s.upload.toWhole === undefined ? s.upload.hashing.median : s.upload.hashing.max)),
      },
    ],
    // Sizes recorded before issue 50 kept their anchor as 'hashing alone'.
    cell: (v) =>
      `${fmt(v.ours)}/s; anchor ${fmt(v.anchor ?? v['hashing alone'])}/s: ${pct(v.ours / (v.anchor ?? v['hashing alone']))}`,
    goal: { text: '≥ 60 % of the anchor', met: (v) => v.ours / (v.anchor ?? v['hashing alone']) >= 0.6 },
  },
];

/** Values the cells read beside the plotted series. */
function extras(s: SizeResults): Record<string, Record<string, number | undefined>> {
  return {
    seed: { posts: s.posts },
    'page-views': { errors: s.pageViews?.errors, seconds: s.pageViews?.seconds, perSecond: s.pageViews?.perSecond },
    rss: { spread: s.pageViews?.rssSpread, rssMinutes: s.pageViews?.rssMinutes },
    'es-heap': { heapMax: s.esHeap?.heapMaxMiB },
  };
}

function valuesOf(s: SizeResults): ScaleSize['values'] {
  const out: ScaleSize['values'] = {};
  const more = extras(s);
  for (const f of FIGURES) {
    const v: Record<string, number> = {};
    for (const series of f.series) {
      const x = series.pick(s);
      if (x !== undefined) v[series.name] = x;
    }
    if (Object.keys(v).length === 0) continue;
    for (const [k, x] of Object.entries(more[f.key] ?? {})) if (x !== undefined) v[k] = x;
    out[f.key] = v;
  }
  return out;
}

export function readScale(file = FILE): Record<string, ScaleSize> {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, ScaleSize>) : {};
}

/** Keeps each size of a full run (the figures it measured) in bench/scale.json. */
export function recordScale(results: RunResults, file = FILE): void {
  const kept = readScale(file);
  for (const s of results.sizes) {
    const values = valuesOf(s);
    if (Object.keys(values).length === 0) continue;
    kept[String(s.posts)] = { date: results.startedAt, commit: results.machine.commit, posts: s.posts, values };
  }
  fs.writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
}

/**
 * A page-view run of its own (bench/load/page-views.ts, kept in bench/load/pageviews.json under `label`) as the
 * page-view and RSS figures of its corpus size, which must already be in bench/scale.json.
 */
export function recordPageViews(run: PageViewRun, file = FILE): void {
  const kept = readScale(file);
  const size = kept[String(run.posts)];
  if (!size) throw new Error(`bench/scale.json holds no run of ${run.posts} posts`);
  const values = valuesOf({ posts: run.posts, seedSeconds: 0, pageViews: pageViewFigure(run) });
  size.separately ??= {};
  for (const key of ['page-views', 'rss']) {
    size.values[key] = values[key];
    size.separately[key] = { date: run.startedAt, commit: run.machine.commit };
  }
  fs.writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
}

const sizeLabel = (p: number) => (p >= 1_000_000 ? `${p / 1_000_000}M` : `${p / 1000}k`);

/** One log-log plot per figure, every series over every kept size, as SVG. */
export async function writePlots(kept = readScale(), dir = PLOTS): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const sizes = Object.values(kept).sort((a, b) => a.posts - b.posts);
  for (const f of FIGURES) {
    const values = sizes.flatMap((s) =>
      f.series
        .filter((series) => (s.values[f.key]?.[series.name] ?? 0) > 0)
        .map((series) => ({ posts: s.posts, value: s.values[f.key][series.name], series: series.name })),
    );
    if (values.length === 0) continue;
    const spec: vl.TopLevelSpec = {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      title: { text: f.label.replace(/`/g, ''), fontSize: 11, limit: 560 },
      width: 380,
      height: 200,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'posts', type: 'quantitative', scale: { type: 'log' }, title: 'posts' },
        y: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: f.unit },
        color: { field: 'series', type: 'nominal', title: null, sort: f.series.map((s) => s.name) },
      },
    };
    const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
    fs.writeFileSync(path.join(dir, `${f.key}.svg`), `${await view.toSVG()}\n`);
    view.finalize();
  }
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The table and the plots, as a section of RESULTS.md. */
export function renderScale(kept = readScale()): string[] {
  const sizes = Object.values(kept).sort((a, b) => a.posts - b.posts);
  if (sizes.length === 0) return [];
  const at = (p: number) => sizes.find((s) => s.posts === p);
  const big = at(GOAL_SIZE);
  const one = at(1_000_000);
  const out = [
    '## How each figure grows: ' + sizes.map((s) => sizeLabel(s.posts)).join(', ') + ' posts',
    '',
    'One corpus shape at every size (bench/load/corpus-build.ts; see [notes/scale.md](notes/scale.md)); each size is ' +
      'the latest full run that measured it (`npm run bench -- --sizes …`), kept in [scale.json](scale.json). ' +
      'Growth is the 10M figure over the 1M one (of the first value in the cell).',
    '',
    `| figure | ${sizes.map((s) => sizeLabel(s.posts)).join(' | ')} | growth 1M→10M | goal at 10M | met? |`,
    `|---|${sizes.map(() => '---|').join('')}---|---|---|`,
  ];
  for (const f of FIGURES) {
    const first = f.series[0].name;
    const cells = sizes.map((s) => (s.values[f.key] ? f.cell(s.values[f.key]) : '—'));
    const growth =
      big?.values[f.key]?.[first] !== undefined && one?.values[f.key]?.[first] !== undefined
        ? `${fmt(big.values[f.key][first] / one.values[f.key][first])}×`
        : '—';
    const met = f.goal && big?.values[f.key] ? (f.goal.met(big.values[f.key]) ? '✅' : '❌') : '—';
    out.push(`| ${[f.label, ...cells, growth, f.goal?.text ?? 'none stated', met].map(cell).join(' | ')} |`);
  }
  out.push(
    '',
    'Runs: ' +
      sizes.map((s) => `${sizeLabel(s.posts)} ${s.date.slice(0, 10)} at ${s.commit.slice(0, 7)}`).join('; ') +
      '.',
    '',
    ...costParagraph(),
    ...FIGURES.filter((f) => fs.existsSync(path.join(PLOTS, `${f.key}.svg`))).map(
      (f) => `![${f.label.replace(/`/g, '')}](plots/${f.key}.svg)`,
    ),
    '',
  );
  return out;
}

/** notes/scale.md's "What a board of 10M costs here", shown under the table (links made relative to bench/). */
function costParagraph(): string[] {
  const file = path.join(ROOT, 'bench', 'notes', 'scale.md');
  if (!fs.existsSync(file)) return [];
  const md = fs.readFileSync(file, 'utf8');
  const at = md.indexOf('## What a board of 10M costs here');
  if (at < 0) return [];
  const end = md.indexOf('\n## ', at + 1);
  const section = md
    .slice(at, end < 0 ? undefined : end)
    .trim()
    .replace(/^## /, '### ')
    .replace(/\]\((?!https?:|#)(?:\.\/)?([^)]+)\)/g, (_, target: string) =>
      target.startsWith('../') ? `](${target.slice(3)})` : `](notes/${target})`,
    );
  return [section, ''];
}
