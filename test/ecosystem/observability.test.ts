import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

let app: TestApp;
let user: TestUser;
let receiver: Receiver;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
  receiver = await startReceiver(200);
});
test.after.always(async () => {
  await receiver?.close();
  await app?.close();
});

/** The value of one series in Prometheus text format, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const scrape = async () => {
  const res = await app.request('/metrics');
  return { res, text: await res.text() };
};

test.serial('metrics move after an upload and a webhook delivery', async (t) => {
  const before = await scrape();
  t.is(before.res.status, 200);
  t.regex(before.res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  // Process metrics come from prom-client's default collectors, in this app's own registry.
  t.truthy(sample(before.text, 'process_cpu_user_seconds_total'));
  t.is(sample(before.text, 'imgpost_webhook_deliveries_total', { outcome: 'success' }), 0);
  const appliedBefore = sample(before.text, 'imgpost_index_relay_applied_total') ?? 0;
  t.is(sample(before.text, 'imgpost_outbox_backlog'), 0);
  t.is(sample(before.text, 'imgpost_hash_pool_queue_size'), 0);

  const hook = await app.request('/api/webhook', {
    method: 'POST',
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, secret: 'metrics-secret-1', events: ['create'] }),
  });
  t.is(hook.status, 201);
  const up = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(4242) }),
  });
  t.is(up.status, 201);
  await receiver.waitFor(1);
  await app.services.webhookDispatcher.whenIdle();

  const after = (await scrape()).text;
  t.is(
    sample(after, 'imgpost_http_request_duration_seconds_count', { method: 'POST', route: '/api/post', status: '201' }),
    1,
  );
  t.is(
    sample(after, 'imgpost_http_request_duration_seconds_count', {
      method: 'POST',
      route: '/api/webhook',
      status: '201',
    }),
    1,
  );
  t.true(sample(after, 'imgpost_index_relay_applied_total')! > appliedBefore);
  t.is(sample(after, 'imgpost_webhook_deliveries_total', { outcome: 'success' }), 1);
  t.is(sample(after, 'imgpost_webhook_deliveries_total', { outcome: 'failure' }), 0);
  t.is(sample(after, 'imgpost_outbox_backlog'), 0);
  t.is(sample(after, 'imgpost_outbox_oldest_age_seconds'), 0);
});

test.serial('metrics are per app: a second app starts from zero', async (t) => {
  const other = await startTestApp();
  try {
    const text = await (await other.request('/metrics')).text();
    t.is(
      sample(text, 'imgpost_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/post',
        status: '201',
      }),
      undefined,
    );
    t.is(sample(text, 'imgpost_webhook_deliveries_total', { outcome: 'success' }), 0);
  } finally {
    await other.close();
  }
});

test.serial('one JSON log line per request, with id, route, status, duration and user; no secrets', async (t) => {
  const res = await app.request('/api/post/?limit=1', { headers: { ...user.headers, 'X-Request-Id': 'log-probe-1' } });
  t.is(res.status, 200);
  const denied = await app.request('/api/webhook', { headers: { 'X-Request-Id': 'log-probe-2' } });
  t.is(denied.status, 401);
  const lines = app.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
  const probe = lines.filter((l) => l.msg === 'request' && l.requestId === 'log-probe-1');
  t.is(probe.length, 1);
  t.like(probe[0], { level: 'info', method: 'GET', route: '/api/post', status: 200, userId: user.id });
  t.is(typeof probe[0].durationMs, 'number');
  t.is(typeof probe[0].time, 'string');
  // A request stopped by a router-level middleware still names its route, not a catch-all.
  t.like(
    lines.find((l) => l.requestId === 'log-probe-2'),
    { route: '/api/webhook', status: 401, userId: null },
  );
  // The upload, with the caller's id.
  t.truthy(
    lines.find(
      (l) =>
        l.msg === 'request' &&
        l.route === '/api/post' &&
        l.method === 'POST' &&
        l.status === 201 &&
        l.userId === user.id,
    ),
  );
  // Access keys, webhook secrets and passwords never reach the log.
  const all = app.logs.join('');
  t.false(all.includes(user.accessKey));
  t.false(all.includes('metrics-secret-1'));
  t.false(all.includes('correct horse battery'));
});

test.serial('unmatched paths are logged with their path and counted under one label', async (t) => {
  await app.request('/no/such/thing', { headers: { 'X-Request-Id': 'log-probe-3' } });
  const line = app.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === 'log-probe-3');
  t.like(line, { route: null, path: '/no/such/thing', status: 404 });
  const text = (await scrape()).text;
  t.true(
    sample(text, 'imgpost_http_request_duration_seconds_count', {
      method: 'GET',
      route: 'unmatched',
      status: '404',
    })! >= 1,
  );
});

test.serial('failed Elasticsearch requests are counted by error class', async (t) => {
  const count = async () =>
    sample((await scrape()).text, 'imgpost_elasticsearch_errors_total', { kind: 'ResponseError' }) ?? 0;
  const before = await count();
  // Any service's request goes through the same client; a 404 nobody asked to ignore is an error.
  await t.throwsAsync(
    app.services.es.get({ index: `${app.services.config.elasticsearch.indexPrefix}-missing`, id: '1' }),
  );
  t.is(await count(), before + 1);
});

test.serial(
  'the server keeps one hash worker while idle, starts the second when images pile up, and lets it go',
  async (t) => {
    const pooled = await startTestApp({ HASH_WORKERS: '2', HASH_WORKER_IDLE_MS: '3000' });
    try {
      const threads = async () => sample(await (await pooled.request('/metrics')).text(), 'imgpost_hash_pool_threads');
      t.is(await threads(), 1);
      const uploader = await createUser(pooled, 0x2 | 0x4 | 0x2000);
      // Ten at once: more than the first worker's backlog of two (src/hashing/pool.ts, OVERFLOW_AT).
      const images = await Promise.all(Array.from({ length: 10 }, (_, i) => randomImage(5101 + i)));
      const ups = await Promise.all(
        images.map((image) =>
          pooled.request('/api/post/', { method: 'POST', headers: uploader.headers, body: uploadForm({ image }) }),
        ),
      );
      t.deepEqual(
        ups.map((r) => r.status),
        Array(10).fill(201),
      );
      t.is(await threads(), 2);
      // Then, with nothing to do for HASH_WORKER_IDLE_MS, back to one.
      const deadline = Date.now() + 15_000;
      let now = 2;
      while (now !== 1 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        now = (await threads())!;
      }
      t.is(now, 1);
    } finally {
      await pooled.close();
    }
  },
);
