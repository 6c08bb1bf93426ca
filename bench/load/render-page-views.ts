/**
 * `npx tsx bench/load/render-page-views.ts`: rewrites bench/notes/page-views.md and the dashboard from
 * bench/load/pageviews.json (after a change to the rendering).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeDashboard } from '../dashboard.ts';
import { ROOT } from '../lib/env.ts';
import { writePageViews, type PageViewRun } from './page-views-report.ts';
import { headerOf, parseCli } from '../lib/cli.ts';

parseCli({ usage: headerOf(import.meta.url) });

const kept = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/load/pageviews.json'), 'utf8')) as {
  runs: Record<string, PageViewRun>;
};
const runs = Object.values(kept.runs);
if (runs.length === 0) throw new Error('bench/load/pageviews.json holds no run');
writePageViews(runs[runs.length - 1], { appendToResults: true });
writeDashboard();
