/**
 * `npm run bench -- scale-record --page-views LABEL`: records a kept page-view run (bench/load/pageviews.json,
 * run with `--label LABEL`) into its corpus size in bench/scale.json, then redraws the plots and the dashboard.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeDashboard } from './dashboard.ts';
import { parseCli, runIfMain, usageError } from './lib/cli.ts';
import { ROOT } from './lib/env.ts';
import type { PageViewRun } from './load/page-views-report.ts';
import { recordPageViews, writePlots } from './scale.ts';

const USAGE = 'Usage: npm run bench -- scale-record --page-views LABEL\n';

runIfMain(import.meta.url, async () => {
  const { values } = parseCli({ usage: USAGE, options: { 'page-views': { type: 'string' } } });
  const label = values['page-views'];
  if (!label) usageError(USAGE, '--page-views: the label of a kept page-view run');
  const runs = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/load/pageviews.json'), 'utf8')) as {
    runs: Record<string, PageViewRun>;
  };
  if (!runs.runs[label]) throw new Error(`bench/load/pageviews.json holds no run labelled ${label}`);
  recordPageViews(runs.runs[label]);
  await writePlots();
  writeDashboard();
});
