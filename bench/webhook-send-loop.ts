/**
 * The webhook POST alone, without a dispatcher: CPU of this process per POST for each HTTP client,
 * against the drain's receivers (bench/lib/drain-receivers.ts, a child process that checks every
 * signature and the order per receiver). One lane per receiver, one request in flight each (as the
 * dispatcher sends), signed bodies of about 400 bytes, each loop checked at the receivers; the
 * clients in turn, in alternating order per round, after an uncounted warm-up of each
 * (bench/notes/webhook-drain.md, "The sends on undici").
 *
 * - `node-http`: `http.request` over a keep-alive Agent, the response read to its end.
 * - `undici-client`: a bare undici `Client` per receiver, `dispatch` with a handler object.
 * - `undici-agent`: the same through undici's `Agent` (its own pool per origin).
 * - `ours`: src/webhooks/send.ts (its pool, time-outs, shutdown list) over ssrf.ts's connections.
 *
 *   npx tsx bench/webhook-send-loop.ts [POSTS_PER_LANE (3000)] [ROUNDS (3)] [CLIENTS (all, comma-separated)]
 */
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, Client } from 'undici';
import { signBody } from '../src/webhooks/attempt.ts';
import { postWebhook } from '../src/webhooks/send.ts';
import { createTargetAgents } from '../src/webhooks/ssrf.ts';
import type { ReceiversReport } from './lib/drain-receivers.ts';
import { headerOf, numberArg, parseCli } from './lib/cli.ts';
import { ROOT } from './lib/env.ts';
import { StatusHandler } from './lib/undici-status.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const perLane = numberArg(args[0], 3000);
const rounds = numberArg(args[1], 3);
const LANES = 5;

const secrets = Array.from({ length: LANES }, (_, i) => `loop-secret-${i}-${crypto.randomBytes(8).toString('hex')}`);
const child = fork(path.join(ROOT, 'bench/lib/drain-receivers.ts'), [], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const next = (key: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
  });
const ready = next('ports');
child.send({ secrets });
const { ports } = (await ready) as { ports: number[] };
const urls = ports.map((port, i) => new URL(`http://127.0.0.1:${port}/hook/${i}`));

const filler = 'x'.repeat(340);
let seq = 0;
/** The receivers check that the number after "drain" rises per receiver. */
const nextBody = () => `{"event":"update","text":"drain ${seq++} ${filler}"}`;
const headersFor = (body: string, i: number) => ({
  'Content-Type': 'application/json',
  'User-Agent': 'imgpost-webhooks/1',
  'X-Signature': signBody(body, secrets[i]),
  'X-Webhook-Event': 'update',
  'X-Webhook-Delivery': crypto.randomUUID(),
});

type Send = (i: number, body: string) => Promise<number>;
const httpAgent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
const undiciClients = urls.map((u) => new Client(u.origin));
const undiciAgent = new Agent();
const ours = createTargetAgents({ allowPrivate: () => true });
const shutdown = new AbortController();
const CLIENTS: Record<string, Send> = {
  'node-http': (i, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: urls[i].hostname,
          port: urls[i].port,
          path: urls[i].pathname,
          method: 'POST',
          agent: httpAgent,
          headers: { ...headersFor(body, i), 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    }),
  'undici-client': (i, body) =>
    new Promise((resolve, reject) =>
      undiciClients[i].dispatch(
        { path: urls[i].pathname, method: 'POST', headers: headersFor(body, i), body },
        new StatusHandler(resolve, reject),
      ),
    ),
  'undici-agent': (i, body) =>
    new Promise((resolve, reject) =>
      undiciAgent.dispatch(
        { origin: urls[i].origin, path: urls[i].pathname, method: 'POST', headers: headersFor(body, i), body },
        new StatusHandler(resolve, reject),
      ),
    ),
  ours: (i, body) =>
    postWebhook(urls[i], {
      body,
      headers: headersFor(body, i),
      agent: ours.forUrl(urls[i]),
      timeoutMs: 30_000,
      signal: shutdown.signal,
    }),
};
const names = args[2] ? args[2].split(',') : Object.keys(CLIENTS);
for (const name of names) if (!CLIENTS[name]) throw new Error(`unknown client ${name}: ${Object.keys(CLIENTS)}`);

async function loop(send: Send, n: number): Promise<{ perSecond: number; cpuUs: number }> {
  const armed = next('ready');
  child.send({ expect: n * LANES });
  await armed;
  const done = next('done');
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    urls.map(async (_, i) => {
      for (let k = 0; k < n; k++) {
        const status = await send(i, nextBody());
        if (status !== 204) throw new Error(`HTTP ${status}`);
      }
    }),
  );
  await done;
  const cpu = process.cpuUsage(cpu0);
  const reported = next('report');
  child.send({ report: true });
  const r = (await reported).report as ReceiversReport;
  if (r.received !== n * LANES || r.badSignatures || r.outOfOrder || r.maxConcurrent > 1)
    throw new Error(`receivers: ${JSON.stringify(r)}`);
  return { perSecond: (n * LANES * 1000) / (performance.now() - t0), cpuUs: (cpu.user + cpu.system) / (n * LANES) };
}

for (const name of names) await loop(CLIENTS[name], 300);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? names : [...names].reverse();
  const line: string[] = [];
  for (const name of order) {
    const x = await loop(CLIENTS[name], perLane);
    line.push(`${name} ${Math.round(x.perSecond)}/s ${x.cpuUs.toFixed(1)} µs`);
  }
  console.log(line.join(' | '));
}
console.log('every loop: each POST received once, in order, correctly signed, one at a time per receiver');
child.kill();
httpAgent.destroy();
ours.destroy();
await Promise.all([...undiciClients.map((c) => c.destroy()), undiciAgent.destroy()]);
