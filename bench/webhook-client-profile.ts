/**
 * Where the dispatcher's CPU goes with each HTTP client: the webhook drain (webhook-drain.ts) with
 * the undici client (ours, src/webhooks/send.ts) and node-fetch alternating, a V8 CPU profile taken of each
 * counted drain alone (the dispatcher runs on the bench's main thread; the anchors, warm-ups and
 * setup are not profiled). Prints, per client, the CPU per delivery and the top self-time frames
 * and groups; writes the .cpuprofile files (open them in Chrome's DevTools) to --out.
 *
 * With --ours-only, only our client is drained (no node-fetch drains): to compare
 * one client across runtimes, run it under each (`npx tsx` for the pinned Node, `/usr/bin/node
 * --import tsx` for the system's) and compare the printed groups.
 *
 *   npx tsx bench/webhook-client-profile.ts [--deliveries 10000] [--reps 2] [--out /tmp/webhook-profiles] [--ours-only]
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { postWebhookNodeFetch } from './lib/send-node-fetch.ts';
import { benchWebhookDrain } from './webhook-drain.ts';
import { headerOf, numberArg, parseCli } from './lib/cli.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which part of the stack a frame belongs to, for the grouped view. */
function group(url: string, name: string): string {
  if (name.startsWith('(')) return name; // (garbage collector), (program), (idle)
  if (/node_modules\/(node-fetch|fetch-blob|formdata-polyfill|data-uri-to-buffer|web-streams-polyfill)\//.test(url))
    return 'node-fetch and its polyfills';
  if (url.includes('/src/webhooks/')) return 'src/webhooks';
  if (url.includes('/src/')) return 'src (other)';
  if (url.includes('/bench/')) return 'bench (receivers client side, checks)';
  if (url.includes('better-sqlite3')) return 'better-sqlite3';
  if (/node:internal\/streams|node:stream/.test(url)) return 'node: streams';
  if (/node:_http|node:http/.test(url)) return 'node: http';
  if (/node:net|stream_base_commons|node:internal\/net/.test(url)) return 'node: net / socket writes';
  if (/abort_controller|event_target|node:events|node:internal\/events/.test(url))
    return 'node: events, AbortController, EventTarget';
  if (/node:internal\/url|node:url/.test(url)) return 'node: URL';
  if (/node:internal\/timers|node:timers/.test(url)) return 'node: timers';
  if (/node:internal\/crypto|node:crypto/.test(url)) return 'node: crypto';
  if (url.startsWith('node:')) return 'node: other';
  if (url === '') return `native: ${name || '(anonymous)'}`;
  return 'other JavaScript';
}

/** Self time per frame and per group, in ms, from one or more profiles. */
function selfTimes(profiles: Profile[]) {
  const frames = new Map<string, number>();
  const groups = new Map<string, number>();
  let total = 0;
  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    for (let i = 0; i < p.samples.length; i++) {
      const node = byId.get(p.samples[i])!;
      const ms = (p.timeDeltas[i] ?? 0) / 1000;
      const { functionName, url, lineNumber } = node.callFrame;
      const key = `${functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*?\/(node_modules|src|bench)\//, '$1/')}${url ? `:${lineNumber + 1}` : ''}`;
      frames.set(key, (frames.get(key) ?? 0) + ms);
      const g = group(url, functionName);
      groups.set(g, (groups.get(g) ?? 0) + ms);
      total += ms;
    }
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { total, frames: top(frames, 40), groups: top(groups, 20) };
}

async function main(): Promise<void> {
  const { values } = parseCli({
    usage: headerOf(import.meta.url),
    options: {
      deliveries: { type: 'string' },
      reps: { type: 'string' },
      out: { type: 'string' },
      'ours-only': { type: 'boolean' },
    },
  });
  const deliveries = numberArg(values.deliveries, 10_000);
  const out = values.out ?? '/tmp/webhook-profiles';
  fs.mkdirSync(out, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  const profiles = new Map<string, Profile[]>();
  const result = await benchWebhookDrain({
    deliveries,
    receivers: 5,
    reps: numberArg(values.reps, 2),
    compare: values['ours-only'] ? undefined : { label: 'node-fetch', send: postWebhookNodeFetch },
    log: (line) => process.stderr.write(`${line}\n`),
    onDrain: async (label) => {
      await session.post('Profiler.start');
      return async () => {
        const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
        const list = profiles.get(label) ?? [];
        list.push(profile);
        profiles.set(label, list);
        fs.writeFileSync(path.join(out, `${label}-${list.length}.cpuprofile`), JSON.stringify(profile));
      };
    },
  });
  const runsOf = { ours: result.oursRuns, 'node-fetch': result.compared?.runs ?? [] };
  for (const [label, list] of profiles) {
    const runs = runsOf[label as keyof typeof runsOf];
    const cpu = runs.reduce((s, r) => s + r.cpuMsPerDelivery, 0) / runs.length;
    const rate = runs.reduce((s, r) => s + r.perSecond, 0) / runs.length;
    const t = selfTimes(list);
    const n = result.deliveries * list.length;
    const line = ([k, ms]: [string, number]) =>
      `  ${((ms / t.total) * 100).toFixed(1).padStart(5)} %  ${((ms * 1000) / n).toFixed(1).padStart(6)} µs/delivery  ${k}`;
    console.log(
      `\n## ${label === 'ours' ? 'undici (ours)' : label}: ${rate.toFixed(0)} deliveries/s, ${(cpu * 1000).toFixed(0)} µs CPU per delivery (mean of ${runs.length} drains, profiled)`,
    );
    console.log(
      `profiled ${(t.total / 1000).toFixed(2)} s over ${n} deliveries (${((t.total * 1000) / n).toFixed(0)} µs wall per delivery)\ngroups:`,
    );
    for (const g of t.groups) console.log(line(g));
    console.log('top self-time frames:');
    for (const f of t.frames) console.log(line(f));
  }
  console.log(
    `\n${process.version}; anchor (the faster plain loop, ${result.anchorClient}, not profiled) ${result.anchorRuns.map((r) => Math.round(r.perSecond)).join(', ')} deliveries/s`,
  );
  console.log(`profiles in ${out}; every drain correct: ${result.correct}`);
  session.disconnect();
}

await main();
