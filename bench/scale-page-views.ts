/**
 * `npx tsx bench/scale-page-views.ts LABEL`: records a kept page-view run (bench/load/pageviews.json) into
 * its corpus size in bench/scale.json, then redraws the plots and the dashboard. A file of its own, so that
 * bench/scale.ts (which the dashboard reads) does not import the dashboard back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeDashboard } from './dashboard.ts';
import { ROOT } from './lib/env.ts';
import { runIfMain } from './lib/standalone.ts';
import type { PageViewRun } from './load/page-views-report.ts';
import { recordPageViews, writePlots } from './scale.ts';

runIfMain(import.meta.url, async () => {
  const label = process.argv[2];
  if (!label) throw new Error('usage: npx tsx bench/scale-page-views.ts LABEL');
  const runs = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/load/pageviews.json'), 'utf8')) as {
    runs: Record<string, PageViewRun>;
  };
  if (!runs.runs[label]) throw new Error(`bench/load/pageviews.json holds no run labelled ${label}`);
  recordPageViews(runs.runs[label]);
  await writePlots();
  writeDashboard();
});
