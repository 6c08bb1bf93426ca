/**
 * One webhook drain (webhook-drain.ts: ours between both plain loops, node:http and undici, the
 * ratio against the faster; checked at the receivers) printed as
 * one JSON line, without rewriting RESULTS.md or results.json: for comparing runtimes or commits
 * by alternating runs of it from each tree (issue 28, bench/notes/node24.md), e.g.
 *
 *   /usr/bin/node --import tsx bench/webhook-drain-once.ts 20000 3 node20
 *   npx tsx bench/webhook-drain-once.ts 20000 3 node24
 *
 * Arguments: deliveries (20000), drains of ours (3), a tag for the line, and optionally a number of
 * threads to drain with the server's DispatcherThread instead (WebhookDrainOptions.threads).
 */
import os from 'node:os';
import { benchWebhookDrain, type DrainRun } from './webhook-drain.ts';
import { headerOf, numberArg, parseCli } from './lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const deliveries = numberArg(args[0], 20_000);
const reps = numberArg(args[1], 3);
const tag = args[2] ?? '';
const threads = args[3] === undefined ? undefined : numberArg(args[3], 0);
const r = await benchWebhookDrain({ deliveries, receivers: 5, reps, threads });
const each = (runs: DrainRun[], f: (x: DrainRun) => number) => runs.map((x) => Math.round(f(x))).join(' ');
console.log(
  JSON.stringify({
    tag,
    node: process.version,
    at: new Date().toISOString().slice(11, 19),
    load: os.loadavg()[0].toFixed(1),
    oursMedian: Math.round(r.ours.median),
    anchorMedian: Math.round(r.anchor.median),
    ratio: +r.ratio.toFixed(3),
    anchorClient: r.anchorClient,
    ours: each(r.oursRuns, (x) => x.perSecond),
    oursCpuUs: each(r.oursRuns, (x) => x.cpuMsPerDelivery * 1000),
    oursMainThreadCpuUs: each(r.oursRuns, (x) => x.mainThreadCpuMsPerDelivery * 1000),
    oursThreadsCpuUs: r.oursRuns
      .map((x) =>
        Object.entries(x.threadCpuMsPerDelivery ?? {})
          .filter(([, ms]) => ms >= 0.0005)
          .map(([name, ms]) => `${name.replace('Thread', '')} ${Math.round(ms * 1000)}`)
          .join(', '),
      )
      .join(' | '),
    oursEluPct: each(r.oursRuns, (x) => x.eventLoopUtilization * 100),
    ...Object.fromEntries(
      Object.entries(r.anchors ?? {}).flatMap(([c, a]) => [
        [`anchor ${c}`, each(a.runs, (x) => x.perSecond)],
        [`anchor ${c} cpuUs`, each(a.runs, (x) => x.cpuMsPerDelivery * 1000)],
        [`anchor ${c} recvCpuUs`, each(a.runs, (x) => x.receiverCpuMsPerDelivery * 1000)],
      ]),
    ),
    recvCpuOursUs: each(r.oursRuns, (x) => x.receiverCpuMsPerDelivery * 1000),
    // Runnable but waiting for a core, per delivery: the sending thread's and the receivers' (ours, then the anchor's).
    waitUs: each(r.oursRuns, (x) => (x.runQueueWaitMsPerDelivery?.sender ?? Number.NaN) * 1000),
    recvWaitUs: each(r.oursRuns, (x) => (x.runQueueWaitMsPerDelivery?.receivers ?? Number.NaN) * 1000),
    anchorWaitUs: each(r.anchorRuns, (x) => (x.runQueueWaitMsPerDelivery?.sender ?? Number.NaN) * 1000),
    anchorRecvWaitUs: each(r.anchorRuns, (x) => (x.runQueueWaitMsPerDelivery?.receivers ?? Number.NaN) * 1000),
    correct: r.correct,
  }),
);
