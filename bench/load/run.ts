/**
 * Mixed-traffic load (issue 8): `npx tsx bench/load/run.ts [--seconds 300] [--clients 50]
 * [--posts 100000] [--webhooks 5] [--no-append] [--keep]`.
 *
 * Seeds a corpus (tools/seed, then reindex()), runs the real server as a child process, registers
 * webhooks to a loopback receiver, then keeps `clients` closed-loop clients busy with a weighted mix
 * of post search, image search, list, get, edit and upload for `seconds`. Every write fans out to
 * every webhook. Reports errors (the goal is none), p50/p90/p99 per endpoint, webhook delivery
 * completeness and lag, and the server's RSS over time; writes bench/load/RESULTS.md and
 * bench/load/results.json, and rewrites the dashboard (bench/RESULTS.md), whose mixed-load rows come
 * from that JSON.
 * Exit status 1 when a request failed or a webhook delivery did not arrive.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { openToolJob } from '../../src/roles/jobs.ts';
import { loadConfig } from '../../src/config.ts';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { createLogger } from '../../src/log.ts';
import { reindex } from '../../src/search/reindex.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { WORDS } from '../../tools/seed/words.ts';
import { writeDashboard } from '../dashboard.ts';
import { benchEnv, machineInfo, ROOT, tempDir } from '../lib/env.ts';
import { startServerProcess, type ServerProcess } from '../lib/server-process.ts';
import { maxOf, percentile } from '../lib/stats.ts';
import { readRss } from '../memory.ts';
import { renderLoad, type LoadReport } from './report.ts';
import { parseCli } from '../lib/cli.ts';
import { benchElasticsearchUrl } from '../lib/elasticsearch.ts';

const USAGE = `Usage: npx tsx bench/load/run.ts [--seconds 300] [--clients 50] [--posts 100000] [--webhooks 5] [--no-append] [--keep]

  --seconds N    how long the mixed traffic runs (default 300)
  --clients N    closed-loop clients (default 50)
  --posts N      seeded corpus size (default 100000, the size issue 8 names)
  --webhooks N   webhooks subscribed to every event, on a loopback receiver (default 5)
  --no-append    do not rewrite bench/RESULTS.md now (it reads bench/load/results.json when next rewritten)
  --keep         leave the data directory and index in place

Exit status 1 when a request failed or a webhook delivery did not arrive.
`;
const { values: args } = parseCli({
  usage: USAGE,
  options: {
    seconds: { type: 'string', default: '300' },
    clients: { type: 'string', default: '50' },
    posts: { type: 'string', default: '100000' },
    webhooks: { type: 'string', default: '5' },
    'no-append': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const POSTS = Number(args.posts);
const WEBHOOKS = Number(args.webhooks);
const ES_URL = await benchElasticsearchUrl();
const log = (line: string) => process.stderr.write(`[load] ${line}\n`);

/** The mix, by weight: mostly reads, as an image board's traffic is. */
const MIX = [
  ['GET /api/post/:id', 30],
  ['GET /api/post/', 15],
  ['POST /api/post/search', 20],
  ['POST /image/search', 13],
  ['PUT /api/post/:id', 15],
  ['POST /api/post/', 7],
] as const;
type Endpoint = (typeof MIX)[number][0];

// A deterministic PRNG: the same run issues the same requests.
let state = 0x9e3779b9;
const rnd = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const TOTAL_WEIGHT = MIX.reduce((n, [, w]) => n + w, 0);
function nextEndpoint(): Endpoint {
  let r = rnd() * TOTAL_WEIGHT;
  for (const [name, w] of MIX) if ((r -= w) < 0) return name;
  return MIX[0][0];
}

/** Loopback webhook receiver: when each write's event first reached each webhook. */
async function startReceiver() {
  const firstSeen = new Map<string, number>();
  let received = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received++;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { text: string } };
        const key = `${req.url} ${body.event} ${body.data.text}`;
        if (!firstSeen.has(key)) firstSeen.set(key, performance.now());
      } catch {
        // counted, not matched
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (i: number) => `http://127.0.0.1:${port}/hook${i}`,
    firstSeen,
    received: () => received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function smallImages(n: number): Promise<Buffer[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) => {
      const raw = crypto.createHash('sha512').update(`img${i}`).digest();
      // 8x8 random blocks scaled up: distinct perceptual hashes, a few hundred bytes each.
      return sharp(raw.subarray(0, 48), { raw: { width: 4, height: 4, channels: 3 } })
        .resize(96, 72, { kernel: 'nearest' })
        .png()
        .toBuffer();
    }),
  );
}

async function main(): Promise<number> {
  const dataDir = tempDir('load');
  const prefix = `load-${process.pid}`;
  const env = { ...benchEnv({ dataDir, prefix, esUrl: ES_URL }), WEBHOOK_ALLOW_PRIVATE: '1' };
  const receiver = await startReceiver();
  let server: ServerProcess | undefined;
  const cleanup = async () => {
    await server?.stop();
    await receiver.close();
    if (!args.keep) {
      const es = createEsClient({ url: ES_URL, indexPrefix: prefix });
      await es.indices.delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] }).catch(() => {});
      await es.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

  try {
    // Corpus, account and webhooks, written straight to DATA_DIR before the server starts.
    const services = await openToolJob(loadConfig(env), createLogger('warn'));
    const seeded = Date.now();
    const seed = seedPosts(services.db, { count: POSTS, seed: 1 });
    await reindex(services, { settleMs: 50, retire: 'now' });
    log(`seeded and indexed ${POSTS} posts in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const user = await services.accounts.createUser({
      name: 'load_runner',
      password: 'load runner password',
      permission: 0x2 | 0x4 | 0x2000,
    });
    for (let i = 0; i < WEBHOOKS; i++)
      await services.webhooks.create(user.id, {
        url: receiver.url(i),
        secret: `secret-${i}`,
        events: ['create', 'update', 'delete'],
      });
    const ids = services.db.prepare('SELECT id FROM posts').pluck().all() as string[];
    await services.close();
    const images = await smallImages(300);

    server = await startServerProcess(env);
    log(`server pid ${server.pid} at ${server.url}; ${CLIENTS} clients for ${SECONDS} s`);
    const key = { 'X-Access-Key': user.accessKey };
    const jsonHeaders = { ...key, 'Content-Type': 'application/json' };
    const base = server.url;

    const latencies = new Map<Endpoint, number[]>(MIX.map(([e]) => [e, []]));
    const errors = new Map<Endpoint, { count: number; first?: string }>(MIX.map(([e]) => [e, { count: 0 }]));
    const acked = new Map<string, number>(); // webhook match key (without the hook path) → ack time
    let writeSeq = 0;

    const request = async (endpoint: Endpoint): Promise<void> => {
      let res: Response;
      let expect = 200;
      let ackKey: string | undefined;
      switch (endpoint) {
        case 'GET /api/post/:id':
          res = await fetch(`${base}/api/post/${pick(ids)}`);
          break;
        case 'GET /api/post/':
          res = await fetch(`${base}/api/post/?offset=${Math.floor(rnd() * rnd() * POSTS)}&limit=24`);
          break;
        case 'POST /api/post/search': {
          const filters = [
            [{ type: 'tag', op: 'include', value: pick(seed.tags.slice(0, 200)) }],
            [{ type: 'text', op: 'contains', value: pick(WORDS) }],
            [
              { type: 'tag', op: 'include', value: pick(seed.tags.slice(0, 50)) },
              { type: 'createdAt', op: 'gte', value: `202${Math.floor(rnd() * 4)}-01-01` },
            ],
            [
              { type: 'rating', value: 'moderate' },
              { type: 'text', op: 'not_contains', value: pick(WORDS) },
            ],
          ];
          const body = {
            filter: pick(filters),
            order: [
              { key: pick(['createdAt', 'id', 'uploaderId'] as const), direction: pick(['asc', 'desc'] as const) },
            ],
          };
          res = await fetch(
            `${base}/api/post/search?offset=${rnd() < 0.8 ? 0 : 24 * Math.floor(rnd() * 10)}&limit=24`,
            { method: 'POST', headers: jsonHeaders, body: JSON.stringify(body) },
          );
          break;
        }
        case 'POST /image/search': {
          const conditions = pick([
            [{ type: 'tagInclude', value: pick(seed.tags.slice(0, 200)) }],
            [{ type: 'textContains', value: pick(WORDS) }],
            [{ type: 'textMatch', value: `${pick(WORDS)} ${pick(WORDS)}` }],
            [
              { type: 'uploadedBy', value: pick(seed.users).name },
              { type: 'ratingEq', value: 'none' },
            ],
            [],
          ]);
          res = await fetch(`${base}/image/search`, {
            method: 'POST',
            headers: jsonHeaders,
            body: JSON.stringify({ conditions, orderBy: pick(['uploadDate', 'id', 'relevance']), order: 'desc' }),
          });
          break;
        }
        case 'PUT /api/post/:id': {
          const text = `load edit ${++writeSeq}`;
          ackKey = `update ${text}`;
          res = await fetch(`${base}/api/post/${pick(ids)}`, {
            method: 'PUT',
            headers: jsonHeaders,
            body: JSON.stringify({ text, tags: [pick(seed.tags), pick(seed.tags)] }),
          });
          break;
        }
        case 'POST /api/post/': {
          const text = `load upload ${++writeSeq}`;
          ackKey = `create ${text}`;
          const form = new FormData();
          form.append('image', new Blob([new Uint8Array(pick(images))], { type: 'image/png' }), 'x.png');
          form.append(
            'metadata',
            new Blob([JSON.stringify({ text, tags: [pick(seed.tags)] })], { type: 'application/json' }),
          );
          form.append('force', '1'); // the image pool repeats; near-duplicates are not what this measures
          res = await fetch(`${base}/api/post/`, { method: 'POST', headers: key, body: form });
          expect = 201;
          break;
        }
      }
      const text = await res.text();
      if (res.status !== expect) throw new Error(`${res.status} ${text.slice(0, 200)}`);
      if (ackKey) acked.set(ackKey, performance.now());
    };

    // Memory over time: the server's RSS every second.
    const started = performance.now();
    const memory: { s: number; rssMiB: number }[] = [];
    const sampler = setInterval(() => {
      const r = readRss(server!.pid);
      if (r) memory.push({ s: (performance.now() - started) / 1000, rssMiB: r.rss / 2 ** 20 });
    }, 1000);
    const deadline = started + SECONDS * 1000;
    let lastReport = started;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < deadline) {
          const endpoint = nextEndpoint();
          const t0 = performance.now();
          try {
            await request(endpoint);
          } catch (err) {
            const e = errors.get(endpoint)!;
            e.count++;
            e.first ??=
              err instanceof Error
                ? `${err.message}${err.cause ? ` (${(err.cause as Error).message})` : ''}`
                : String(err);
          }
          latencies.get(endpoint)!.push(performance.now() - t0);
          if (performance.now() - lastReport > 30_000) {
            lastReport = performance.now();
            const n = [...latencies.values()].reduce((a, l) => a + l.length, 0);
            log(
              `${((lastReport - started) / 1000).toFixed(0)} s: ${n} requests, ${[...errors.values()].reduce((a, e) => a + e.count, 0)} errors, rss ${memory.at(-1)?.rssMiB.toFixed(0)} MiB`,
            );
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;

    // Fan-out: every acknowledged write's event at every webhook. The dispatcher may trail the load by
    // minutes (a 5-minute run at 50 clients left it about 100 s behind), so it gets up to 5 to finish.
    const expected = acked.size * WEBHOOKS;
    const delivered = () =>
      [...acked.keys()].reduce(
        (n, k) =>
          n +
          Array.from({ length: WEBHOOKS }, (_, i) => receiver.firstSeen.has(`/hook${i} ${k}`)).filter(Boolean).length,
        0,
      );
    const drainStart = performance.now();
    while (delivered() < expected && performance.now() - drainStart < 300_000)
      await new Promise((r) => setTimeout(r, 250));
    clearInterval(sampler);
    // An event can arrive before its write's response: it is sent once the change commits, while
    // the response waits for the index. That counts as no lag; how often it happened is reported.
    const lags: number[] = [];
    let early = 0;
    for (const [k, at] of acked)
      for (let i = 0; i < WEBHOOKS; i++) {
        const seen = receiver.firstSeen.get(`/hook${i} ${k}`);
        if (seen === undefined) continue;
        if (seen < at) early++;
        lags.push(Math.max(0, seen - at));
      }

    const report: LoadReport = {
      startedAt: new Date(Date.now() - elapsed * 1000).toISOString(),
      requestedSeconds: SECONDS,
      seconds: elapsed,
      clients: CLIENTS,
      posts: POSTS,
      webhooks: WEBHOOKS,
      machine: await machineInfo(ES_URL),
      endpoints: MIX.map(([name, weight]) => {
        const l = latencies.get(name)!;
        return {
          name,
          weight,
          n: l.length,
          rps: l.length / elapsed,
          p50: percentile(l, 50),
          p90: percentile(l, 90),
          p99: percentile(l, 99),
          max: maxOf(l),
          errors: errors.get(name)!.count,
          firstError: errors.get(name)!.first,
        };
      }),
      fanOut: {
        writes: acked.size,
        expected,
        delivered: delivered(),
        receivedTotal: receiver.received(),
        lagP50: percentile(lags, 50),
        lagP99: percentile(lags, 99),
        lagMax: maxOf(lags, 0),
        earlyShare: lags.length ? early / lags.length : 0,
        drainSeconds: (performance.now() - drainStart) / 1000,
      },
      memory,
    };
    const md = renderLoad(report);
    const outDir = path.join(ROOT, 'bench/load');
    fs.writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(outDir, 'RESULTS.md'), `# Load results (issue 8)\n\n${md}`);
    if (!args['no-append']) writeDashboard();
    process.stdout.write(md);
    const failed = report.endpoints.reduce((n, e) => n + e.errors, 0);
    return failed === 0 && report.fanOut.delivered === expected ? 0 : 1;
  } catch (err) {
    log(`FAILED: ${(err as Error).stack}${server ? `\n--- server stderr ---\n${server.tail()}` : ''}`);
    return 1;
  } finally {
    await cleanup();
  }
}

process.exitCode = await main();
