/** Markdown for one load run (bench/load/run.ts): every number comes from the report object. */
import type { Machine } from '../lib/env.ts';

export interface EndpointResult {
  name: string;
  weight: number;
  n: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  firstError?: string;
}

export interface LoadReport {
  startedAt: string;
  /** as asked (--seconds) and as it ran */
  requestedSeconds: number;
  seconds: number;
  clients: number;
  posts: number;
  webhooks: number;
  machine: Machine;
  endpoints: EndpointResult[];
  fanOut: {
    writes: number;
    expected: number;
    delivered: number;
    receivedTotal: number;
    lagP50: number;
    lagP99: number;
    lagMax?: number;
    earlyShare?: number;
    drainSeconds: number;
  };
  /** the server's RSS, sampled every second */
  memory: { s: number; rssMiB: number }[];
}

const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '—');

export function renderLoad(r: LoadReport): string {
  const total = r.endpoints.reduce((n, e) => n + e.n, 0);
  const errors = r.endpoints.reduce((n, e) => n + e.errors, 0);
  const lines: string[] = [];
  lines.push(
    `Run of \`npx tsx bench/load/run.ts --seconds ${r.requestedSeconds} --clients ${r.clients} --posts ${r.posts} --webhooks ${r.webhooks}\`, started ${r.startedAt} ` +
      `on ${r.machine.cores} cores (${r.machine.cpu}), Node ${r.machine.node}, Elasticsearch ${r.machine.elasticsearch}, commit ${r.machine.commit}; ` +
      `load average at the start ${r.machine.loadAverage.join(' / ')}.`,
    '',
    `${r.clients} closed-loop clients against the server as a child process (a seeded corpus of ${r.posts.toLocaleString('en')} posts, rate limits off), ` +
      `${r.webhooks} webhooks subscribed to every event on a loopback receiver. **${total.toLocaleString('en')} requests in ${r.seconds.toFixed(0)} s ` +
      `(${(total / r.seconds).toFixed(1)} req/s), ${errors} errors.**`,
    '',
    '| endpoint | share | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | errors |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  const weights = r.endpoints.reduce((n, e) => n + e.weight, 0);
  for (const e of r.endpoints)
    lines.push(
      `| \`${e.name}\` | ${Math.round((100 * e.weight) / weights)} % | ${e.n} | ${e.rps.toFixed(1)} | ${ms(e.p50)} | ${ms(e.p90)} | ${ms(e.p99)} | ${ms(e.max)} | ${e.errors} |`,
    );
  const firstErrors = r.endpoints.filter((e) => e.firstError);
  if (firstErrors.length)
    lines.push('', 'First error per endpoint:', ...firstErrors.map((e) => `- \`${e.name}\`: ${e.firstError}`));
  const f = r.fanOut;
  lines.push(
    '',
    `Webhook fan-out: ${f.writes} acknowledged writes × ${r.webhooks} webhooks = ${f.expected} events expected, **${f.delivered} delivered** ` +
      `(${f.receivedTotal} deliveries received in all, retries included); lag from the write's response to the event's arrival p50 ${ms(f.lagP50)} ms, p99 ${ms(f.lagP99)} ms` +
      (f.lagMax !== undefined ? `, max ${ms(f.lagMax)} ms` : '') +
      (f.earlyShare !== undefined
        ? ` (${(f.earlyShare * 100).toFixed(1)} % arrived before the write's response, which waits for the index: lag 0)`
        : '') +
      '; ' +
      `the last deliveries arrived ${f.drainSeconds.toFixed(1)} s after the load stopped.`,
    '',
  );
  // Memory over time: ten evenly spaced samples plus the peak.
  const m = r.memory;
  if (m.length > 0) {
    const points = Array.from(
      { length: Math.min(11, m.length) },
      (_, i) => m[Math.round((i * (m.length - 1)) / Math.max(1, Math.min(10, m.length - 1)))],
    );
    const peak = m.reduce((a, b) => (b.rssMiB > a.rssMiB ? b : a));
    lines.push(
      `Server RSS over time (MiB): ${points.map((p) => `${p.s.toFixed(0)} s: ${p.rssMiB.toFixed(0)}`).join(' · ')}; peak ${peak.rssMiB.toFixed(0)} MiB at ${peak.s.toFixed(0)} s; ` +
        (Number.isFinite(growth(m))
          ? `change from the next-to-last to the last minute (medians) ${growth(m).toFixed(0)} MiB.`
          : 'too short a run to compare minutes.'),
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** RSS change between the median of the first and of the last minute of samples (a leak shows as steady growth). */
function growth(m: { s: number; rssMiB: number }[]): number {
  const end = m[m.length - 1].s;
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
  const last = med(m.filter((p) => p.s >= end - 60).map((p) => p.rssMiB));
  const previous = med(m.filter((p) => p.s >= end - 120 && p.s < end - 60).map((p) => p.rssMiB));
  return Number.isFinite(previous) ? last - previous : Number.NaN;
}
