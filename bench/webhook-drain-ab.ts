/**
 * Two versions of the webhook dispatcher drained in one process (webhook-drain.ts with `compare.root`):
 * this checkout's and another checkout's (`--against DIR`, e.g. main unpacked with `git archive`),
 * alternating drain by drain between the same plain loops, and printed as one JSON line. On a host
 * whose speed changes within minutes, separate runs of each tree differ by more than most changes
 * do; here both meet the same moments.
 *
 * `vsAgainst` is ours (median) ÷ theirs (median); `pairs` the same per repetition (the two drains of
 * a repetition run back to back), whose median is the steadier figure. Run it a few times.
 *
 *   npx tsx bench/webhook-drain-ab.ts --against /tmp/base [--deliveries 20000] [--reps 4] [--tag TAG]
 */
import os from 'node:os';
import { headerOf, numberArg, parseCli, usageError } from './lib/cli.ts';
import { median } from './lib/stats.ts';
import { benchWebhookDrain, type DrainRun } from './webhook-drain.ts';

const usage = headerOf(import.meta.url);
const { values } = parseCli({
  usage,
  options: {
    against: { type: 'string' },
    deliveries: { type: 'string' },
    reps: { type: 'string' },
    tag: { type: 'string' },
  },
});
if (!values.against) usageError(usage, '--against: the other checkout is required');
const r = await benchWebhookDrain({
  deliveries: numberArg(values.deliveries, 20_000),
  receivers: 5,
  reps: numberArg(values.reps, 4),
  compare: { label: 'against', root: values.against },
});
const theirs = r.compared!;
const each = (runs: DrainRun[], f: (x: DrainRun) => number) => runs.map((x) => Math.round(f(x))).join(' ');
const threads = (runs: DrainRun[]) =>
  runs
    .map((x) =>
      Object.entries(x.threadCpuMsPerDelivery ?? {})
        .filter(([, ms]) => ms >= 0.0005)
        .map(([name, ms]) => `${name.replace('Thread', '')} ${Math.round(ms * 1000)}`)
        .join(', '),
    )
    .join(' | ');
const pairs = r.oursRuns.map((x, i) => x.perSecond / theirs.runs[i].perSecond);
console.log(
  JSON.stringify({
    tag: values.tag ?? '',
    at: new Date().toISOString().slice(11, 19),
    load: os.loadavg()[0].toFixed(1),
    ratio: +r.ratio.toFixed(3),
    anchorClient: r.anchorClient,
    vsAgainst: +theirs.ratio.toFixed(3),
    pairs: pairs.map((p) => p.toFixed(3)).join(' '),
    pairsMedian: +median(pairs).toFixed(3),
    ours: each(r.oursRuns, (x) => x.perSecond),
    theirs: each(theirs.runs, (x) => x.perSecond),
    oursCpuUs: each(r.oursRuns, (x) => x.cpuMsPerDelivery * 1000),
    theirsCpuUs: each(theirs.runs, (x) => x.cpuMsPerDelivery * 1000),
    oursThreadsCpuUs: threads(r.oursRuns),
    theirsThreadsCpuUs: threads(theirs.runs),
    anchor: each(r.anchorRuns, (x) => x.perSecond),
    // Runnable but waiting for a core, µs per delivery: each drain's sending thread and receivers.
    oursWaitUs: each(r.oursRuns, (x) => (x.runQueueWaitMsPerDelivery?.sender ?? Number.NaN) * 1000),
    theirsWaitUs: each(theirs.runs, (x) => (x.runQueueWaitMsPerDelivery?.sender ?? Number.NaN) * 1000),
    anchorWaitUs: each(r.anchorRuns, (x) => (x.runQueueWaitMsPerDelivery?.sender ?? Number.NaN) * 1000),
    correct: r.correct,
  }),
);
