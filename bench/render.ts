/**
 * `npx tsx bench/render.ts [bench/results.json]`: rewrites the matching RESULTS.md from a results
 * file, without measuring anything. For when the report's wording or layout changes after a long
 * run: every number still comes from that run's JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib/env.ts';
import { renderReport, withForeignSections } from './report.ts';
import type { RunResults } from './results.ts';

const file = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench', 'results.json'));
const results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
const md = path.join(path.dirname(file), results.mode === 'quick' ? 'RESULTS.quick.md' : 'RESULTS.md');
const previous = fs.existsSync(md) ? fs.readFileSync(md, 'utf8') : '';
fs.writeFileSync(md, withForeignSections(renderReport(results), previous));
process.stderr.write(`wrote ${path.relative(process.cwd(), md)} from ${path.relative(process.cwd(), file)}\n`);
