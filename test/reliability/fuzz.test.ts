/**
 * Property-based fuzzing of every route with malformed and adversarial requests (issue 8).
 *
 * Properties, over FUZZ_RUNS (default 10,000) generated requests sent 16 at a time on raw sockets:
 * no response is a 5xx, the server never logs an unexpected error, it keeps answering /healthz,
 * its memory stays bounded, no request leaves a temp file behind, and none of them changes what is
 * stored (a fingerprint of the rows and image files is unchanged).
 *
 * The cases are sampled up front from a seeded fast-check arbitrary and sent concurrently, which
 * fc.assert cannot do; a failure prints the seed (FUZZ_SEED reproduces the run) and the cases.
 *
 * The route table covers the operational and documentation routes too (/metrics, /openapi.json,
 * /docs): each must be reached (some 200s), and hostile paths must not turn into metric labels.
 */
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { SessionSealer, loadSessionSecret } from '../../src/accounts/session-cookie.ts';
import { startTestApp, thumbnailsSettled, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { fingerprint } from './fingerprint.ts';
import { families, hugePartCase, zeroBombCases, type FuzzContext } from './fuzz-cases.ts';
import { runPool, send, type RawRequest } from './raw-http.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 16;
// Generous: the process also holds the test's own buffers and two sharp worker threads.
const RSS_GROWTH_LIMIT = 512 * 1024 * 1024;

let app: TestApp;
let ctx: FuzzContext;

test.before(async () => {
  // Limits off: this test is about malformed input, not about being throttled.
  app = await startTestApp({
    LOG_LEVEL: 'warn',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
  });
  const fuzzer = await createUser(app, 0xffff);
  const other = await createUser(app, 6);
  const posts: { id: string; image: string }[] = [];
  let first: Buffer | undefined;
  for (let i = 0; i < 4; i++) {
    const image = await randomImage(7100 + i);
    first ??= image;
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: fuzzer.headers,
      body: uploadForm({ image, metadata: { text: `fuzz ${i}`, tags: ['fuzz', `t${i}`] } }),
    });
    if (res.status !== 201) throw new Error(`setup upload: ${res.status} ${await res.text()}`);
    posts.push(await res.json());
  }
  // An unreachable receiver: any event an accepted request fired would change these rows.
  const hook = (n: number) => ({
    url: `http://127.0.0.1:9/hook${n}`,
    secret: `s${n}`,
    events: ['create', 'update', 'delete'] as ['create', 'update', 'delete'],
  });
  const ownWebhooks: string[] = [];
  for (let i = 0; i < 10; i++) ownWebhooks.push((await app.services.webhooks.create(fuzzer.id, hook(i))).id);
  const otherWebhooks = [(await app.services.webhooks.create(other.id, hook(99))).id];

  const login = await app.request('/api/account/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: fuzzer.name, password: 'correct horse battery' }),
  });
  const cookie = /nmsl_cookie=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1];
  const sealer = new SessionSealer(loadSessionSecret(app.services.config));
  ctx = {
    key: fuzzer.accessKey,
    cookie,
    expiredCookie: sealer.seal({ uid: fuzzer.id, exp: Math.floor(Date.now() / 1000) - 60 }),
    postIds: posts.map((p) => p.id),
    postSeqs: posts.map((p) => app.services.postRepository.getById(p.id)!.seq),
    images: posts.map((p) => p.image),
    ownWebhooks,
    otherWebhooks,
    duplicatePng: first!,
  };
});
test.after.always(() => app?.close());

const describe = (req: RawRequest) => {
  const body = req.body
    ? req.body
        .subarray(0, 160)
        .toString('latin1')
        .replace(/[^\x20-\x7e]/g, '.')
    : req.stream
      ? '<stream>'
      : '';
  return `${req.label}: ${req.method} ${req.target.slice(0, 120)} [${req.headers
    .map(([k, v]) => `${k}: ${v.slice(0, 40)}`)
    .join(' | ')
    .slice(0, 300)}] ${body}`;
};

test('≥10,000 hostile requests: no 5xx, no crash, bounded memory, nothing stored', async (t) => {
  t.timeout(240_000);
  const port = app.server.port;
  const arb = fc.oneof(...families(ctx));
  // The heavy ones, a few times each, spread through the run: 50 MB parts and real bombs.
  const heavy = [
    hugePartCase(ctx, false),
    hugePartCase(ctx, true),
    hugePartCase(ctx, false, '/api/post/similar'),
    ...zeroBombCases(ctx, 3),
  ];
  t.log(`seed ${SEED} (FUZZ_SEED reproduces); ${RUNS} + ${heavy.length} heavy requests, ${CONCURRENCY} at a time`);

  // Handlers that have not settled: one that never does leaks its context and its temp files. Koa's
  // request listener returns the handler's promise; wrap it to watch every one.
  const inFlight = new Map<object, string>();
  const server = app.server.server;
  const [koaListener] = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => Promise<unknown>)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const token = {};
    inFlight.set(
      token,
      `${req.method} ${req.url?.slice(0, 100)} ${req.headers['content-type'] ?? ''} ${req.headers['content-length'] ?? req.headers['transfer-encoding'] ?? ''}`,
    );
    void Promise.resolve(koaListener(req, res)).finally(() => inFlight.delete(token));
  });
  // The setup uploads' thumbnails are made after their responses: the fingerprint starts once they are.
  await thumbnailsSettled(app);
  const before = fingerprint(app.services.db, app.dataDir);
  const rssStart = process.memoryUsage().rss;
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  const healthFailures: string[] = [];
  const failures: string[] = [];
  const tally = new Map<string, { statuses: Map<number, number>; ms: number[] }>();
  const started = performance.now();

  // Sampled and sent a batch at a time, so the cases' bodies are not all held at once.
  const BATCH = 1000;
  for (let b = 0, sent = 0; sent < RUNS; b++) {
    const cases = fc.sample(arb, { numRuns: Math.min(BATCH, RUNS - sent), seed: SEED + b });
    sent += cases.length;
    if (heavy[b]) cases.splice(cases.length >> 1, 0, heavy[b]);
    const results = await runPool(cases, CONCURRENCY, (req) => send(port, req, req.stream ? 60_000 : 30_000));
    results.forEach((r, i) => {
      const req = cases[i];
      const entry = tally.get(req.label) ?? { statuses: new Map<number, number>(), ms: [] };
      entry.statuses.set(r.status, (entry.statuses.get(r.status) ?? 0) + 1);
      entry.ms.push(r.ms);
      tally.set(req.label, entry);
      if (r.status >= 500) failures.push(`${r.status} ← ${describe(req)}\n    ${r.head.slice(0, 300)}`);
      else if (r.timedOut) failures.push(`no answer within the time-out ← ${describe(req)}`);
      else if (r.status === 0 && !req.mayClose)
        failures.push(`closed without a response (${r.error ?? 'eof'}) ← ${describe(req)}`);
      // No generated upload may be stored: say which one was, not only that the fingerprint moved.
      else if (req.label === 'upload' && r.status >= 200 && r.status < 300)
        failures.push(`stored (${r.status}) ← ${describe(req)}`);
    });
    const health = await send(port, {
      label: 'health',
      method: 'GET',
      target: '/healthz',
      headers: [
        ['Host', 'x'],
        ['Connection', 'close'],
      ],
    });
    if (health.status !== 200) healthFailures.push(`after ${sent}: ${health.status} ${health.error ?? ''}`);
  }
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;

  let total = 0;
  for (const [label, { statuses, ms }] of [...tally].sort()) {
    total += ms.length;
    ms.sort((x, y) => x - y);
    const counts = [...statuses]
      .sort((x, y) => x[0] - y[0])
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    t.log(
      `${label.padEnd(17)} n=${String(ms.length).padEnd(5)} p50 ${ms[ms.length >> 1].toFixed(0).padStart(5)} ms  max ${ms[ms.length - 1].toFixed(0).padStart(5)} ms  ${counts}`,
    );
  }
  t.log(
    `${total} requests in ${seconds.toFixed(1)} s; rss ${(rssStart / 2 ** 20).toFixed(0)} MB at start, peak ${(rssPeak / 2 ** 20).toFixed(0)} MB`,
  );

  t.deepEqual(failures.slice(0, 25), [], `${failures.length} failing requests (seed ${SEED})`);

  // The server's own record: an error behind a response the client never saw is still a bug.
  const unexpected = app.logs.filter((l) => /"level":"error"/.test(l));
  t.deepEqual(
    unexpected.slice(0, 10).map((l) => l.slice(0, 600)),
    [],
    `${unexpected.length} error log lines`,
  );
  t.deepEqual(healthFailures, []);
  t.is((await app.request('/healthz')).status, 200);

  // The operational and documentation routes were really reached (not only refused), and still answer.
  for (const label of ['metrics', 'openapi', 'docs']) {
    const statuses = tally.get(label)?.statuses;
    t.true(
      (statuses?.get(200) ?? 0) > 0,
      `${label}: no request answered 200 (${JSON.stringify([...(statuses ?? [])])})`,
    );
  }
  const [metrics, openapi, docs] = await Promise.all(['/metrics', '/openapi.json', '/docs'].map((p) => app.request(p)));
  t.is(metrics.status, 200);
  t.regex(metrics.headers.get('content-type') ?? '', /^text\/plain/);
  t.is(openapi.status, 200);
  t.truthy((await openapi.json()).paths?.['/image/search']);
  t.is(docs.status, 200);
  t.regex(await docs.text(), /<title>imgpost API<\/title>/);
  // Hostile paths and methods must not become metric labels: the request histogram's series stay few,
  // labelled with route templates and known methods only.
  const series = (await metrics.text())
    .split('\n')
    .filter((l) => l.startsWith('imgpost_http_request_duration_seconds_count{'));
  const labels = series.map((l) =>
    Object.fromEntries([...l.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]])),
  );
  t.true(series.length > 0 && series.length < 1000, `${series.length} request-duration series`);
  const odd = labels.filter(
    (l) =>
      !/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|OTHER)$/.test(l.method) ||
      !(l.route === 'unmatched' || /^\/[\w/:.-]*$/.test(l.route)) ||
      !/^\d{3}$/.test(l.status),
  );
  t.deepEqual(odd.slice(0, 10), [], 'metric labels outside the known sets');
  t.false(
    labels.some((l) => ctx.postIds.some((id) => l.route.includes(id))),
    'a post id became a route label',
  );
  t.true(rssPeak - rssStart < RSS_GROWTH_LIMIT, `rss grew by ${((rssPeak - rssStart) / 2 ** 20).toFixed(0)} MB`);

  // Nothing stored, nothing left behind (requests whose client left may still be finishing).
  const tmp = app.services.images.tmpDir;
  const deadline = Date.now() + 15_000;
  while (fs.readdirSync(tmp).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  t.deepEqual([...inFlight.values()].slice(0, 10), [], `${inFlight.size} requests the server never finished`);
  t.deepEqual(
    fs.readdirSync(tmp).map((f) => path.join('tmp', f)),
    [],
  );
  t.is(fingerprint(app.services.db, app.dataDir), before, 'stored rows or image files changed');
});
