/**
 * A feature's benchmark section: a self-contained set of rows (each with its anchor from the same
 * run) that `npm run bench` runs after the core figures, and `npm run bench -- --only NAME` runs
 * alone. A section builds its own corpus (see ./standalone.ts), so running one alone measures the
 * same thing as running it inside the full suite.
 *
 * Its result goes to bench/sections/NAME.json, its rows into the dashboard (bench/RESULTS.md, rewritten
 * by bench/dashboard.ts), and its table with the notes to bench/notes/NAME.md between
 * `<!-- NAME:start -->` and `<!-- NAME:end -->` (text outside the markers is kept), so one section can
 * be re-run without touching the others. A --quick run writes bench/sections-quick/ and its block in
 * bench/RESULTS.quick.md instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitCommit, ROOT } from './env.ts';

export type Verdict = 'met' | 'missed' | 'none';

export interface SectionRow {
  figure: string;
  corpus: string;
  ours: string;
  anchor: string;
  ratio: string;
  goal: string;
  met: Verdict;
}

/** What a section's run returns; the runner adds where and when it was measured. */
export interface SectionOutcome {
  title: string;
  rows: SectionRow[];
  /** paragraphs under the table: how it was measured, and for every miss what bounds it */
  notes: string[];
  /** raw figures, kept in bench/sections/NAME.json */
  data: unknown;
}

export interface SectionContext {
  quick: boolean;
  /** `--sizes` when given; a section picks its own default size otherwise */
  sizes?: number[];
  log(line: string): void;
}

export interface BenchSection {
  name: string;
  /** one line for `npm run bench -- --help` */
  summary: string;
  run(ctx: SectionContext): Promise<SectionOutcome>;
}

export interface SectionReport extends SectionOutcome {
  name: string;
  command: string;
  measuredAt: string;
  /** the checkout measured (`git rev-parse --short HEAD`); absent in reports from before it was kept */
  commit?: string;
  seconds: number;
  /** the 1-minute load average at the start and the end: other work on the shared box */
  loadAverage: { start: number; end: number };
}

const MARK = { ok: '✅ met', missed: '❌ missed', none: '—' } as const;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderSection(r: SectionReport, dir = 'sections'): string {
  const out = [
    `<!-- ${r.name}:start -->`,
    `## ${r.title}`,
    '',
    `Measured by \`${r.command}\` at ${r.measuredAt}${r.commit ? ` on commit ${r.commit}` : ''}` +
      ` in ${Math.round(r.seconds)} s` +
      ` (load average ${r.loadAverage.start} at the start, ${r.loadAverage.end} at the end).` +
      ` Raw figures: [${dir}/${r.name}.json](${dir}/${r.name}.json).`,
    '',
    '| figure | corpus | ours | anchor in the same run | ratio | goal | met? |',
    '|---|---|---|---|---|---|---|',
    ...r.rows.map(
      (x) =>
        `| ${[x.figure, x.corpus, x.ours, x.anchor, x.ratio, x.goal, x.met === 'met' ? MARK.ok : x.met === 'missed' ? MARK.missed : MARK.none].map(cell).join(' | ')} |`,
    ),
  ];
  if (r.notes.length > 0) out.push('', ...r.notes.map((n) => `- ${n}`));
  out.push(`<!-- ${r.name}:end -->`);
  return out.join('\n');
}

/**
 * Writes the section's JSON and replaces (or appends) its block in bench/notes/NAME.md (the caller then
 * rewrites the dashboard); with --quick, the JSON under sections-quick/ and the block in RESULTS.quick.md.
 */
export function writeSection(r: SectionReport, quick: boolean): { md: string; json: string } {
  const dir = path.join(ROOT, 'bench', quick ? 'sections-quick' : 'sections');
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, `${r.name}.json`);
  fs.writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  const md = quick ? path.join(ROOT, 'bench', 'RESULTS.quick.md') : path.join(ROOT, 'bench', 'notes', `${r.name}.md`);
  const previous = fs.existsSync(md) ? fs.readFileSync(md, 'utf8') : quick ? '# Benchmark results\n' : '';
  const block = renderSection(r, quick ? path.basename(dir) : '../sections');
  const existing = new RegExp(`<!-- ${r.name}:start -->[\\s\\S]*?<!-- ${r.name}:end -->`);
  const next = existing.test(previous)
    ? previous.replace(existing, () => block)
    : `${previous.trimEnd()}\n\n${block}\n`.trimStart();
  fs.writeFileSync(md, next);
  return { md, json };
}

/** Runs one section and records it; a failure is recorded as a row-less report with the error. */
export async function runSection(section: BenchSection, ctx: SectionContext, command: string): Promise<SectionReport> {
  const started = Date.now();
  const load = () => Math.round(os.loadavg()[0] * 100) / 100;
  const start = load();
  const outcome = await section.run(ctx);
  return {
    name: section.name,
    command,
    measuredAt: new Date(started).toISOString(),
    commit: gitCommit(),
    seconds: (Date.now() - started) / 1000,
    loadAverage: { start, end: load() },
    ...outcome,
  };
}
