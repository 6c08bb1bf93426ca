/**
 * `npx tsx bench/render.ts [bench/results.json]`: rewrites a run's report from its results file,
 * without measuring anything (for when the report's wording or layout changes after a long run):
 * a full run's bench/notes/core-run.md and the dashboard bench/RESULTS.md, or a quick run's
 * bench/RESULTS.quick.md. Every number still comes from that run's JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeDashboard } from './dashboard.ts';
import { ROOT } from './lib/env.ts';
import { renderReport, withForeignSections } from './report.ts';
import type { RunResults } from './results.ts';
import { headerOf, parseCli } from './lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const file = path.resolve(args[0] ?? path.join(ROOT, 'bench', 'results.json'));
const results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
if (results.mode === 'quick') {
  const md = path.join(path.dirname(file), 'RESULTS.quick.md');
  const previous = fs.existsSync(md) ? fs.readFileSync(md, 'utf8') : '';
  fs.writeFileSync(md, withForeignSections(renderReport(results), previous));
  process.stderr.write(`wrote ${path.relative(process.cwd(), md)} from ${path.relative(process.cwd(), file)}\n`);
} else {
  const md = path.join(ROOT, 'bench', 'notes', 'core-run.md');
  fs.writeFileSync(md, renderReport(results));
  const rel = (f: string) => path.relative(process.cwd(), f);
  process.stderr.write(`wrote ${rel(md)} and ${rel(writeDashboard())} from ${rel(file)}\n`);
}
