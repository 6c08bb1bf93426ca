/**
 * TRUST_PROXY and /metrics (docs/decisions.md §13): behind a trusted proxy, clients are told apart by
 * X-Forwarded-For (rate limits, logs); without it a forged header changes nothing. /metrics needs
 * the bearer token when METRICS_TOKEN is set, and otherwise answers loopback clients only.
 */
import os from 'node:os';
import test from 'ava';
import { createApp } from '../../src/app.ts';
import { listen } from '../../src/server.ts';
import { JSON_BODY_LIMIT } from '../../src/http/body.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../reliability/raw-http.ts';

const WRITE = '/api/post/01900000-0000-7000-8000-000000000001';
/** An anonymous write: it draws on the caller's address bucket (then fails authentication). */
const write = (app: TestApp, forwardedFor: string) =>
  app
    .request(WRITE, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': forwardedFor },
      body: '{}',
    })
    .then((r) => r.status);

test('TRUST_PROXY=1: two clients behind one proxy get separate rate-limit buckets, and the log names each', async (t) => {
  const app = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_WRITES_PER_MINUTE: '3' });
  t.teardown(() => app.close());
  const first = [];
  for (let i = 0; i < 4; i++) first.push(await write(app, '198.51.100.7'));
  t.deepEqual(first, [401, 401, 401, 429], 'the first client used up its own bucket');
  t.is(await write(app, '198.51.100.8'), 401, 'the second client is not limited by the first');
  // Only the last hop counts with one proxy: what a client writes itself in front is ignored.
  t.is(await write(app, '10.9.9.9, 198.51.100.7'), 429);
  const ips = app.logs
    .map((l) => JSON.parse(l) as { msg?: string; ip?: string })
    .filter((l) => l.ip)
    .map((l) => l.ip);
  t.true(
    ips.includes('198.51.100.7') && ips.includes('198.51.100.8'),
    `request log addresses: ${[...new Set(ips)].join(', ')}`,
  );
});

test('TRUST_PROXY=0: a forged X-Forwarded-For changes nothing', async (t) => {
  const app = await startTestApp({ TRUST_PROXY: '0', RATE_LIMIT_WRITES_PER_MINUTE: '3' });
  t.teardown(() => app.close());
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push(await write(app, `198.51.100.${i + 1}`));
  t.deepEqual(statuses, [401, 401, 401, 429, 429], 'one bucket: the socket address');
  const ips = new Set(app.logs.map((l) => (JSON.parse(l) as { ip?: string }).ip).filter(Boolean));
  t.deepEqual(
    [...ips].map((ip) => ip!.replace(/^::ffff:/, '')),
    ['127.0.0.1'],
  );
});

test('METRICS_TOKEN set: /metrics refused without the bearer token or with a wrong one, served with it', async (t) => {
  const token = 'metrics-token-0123456789abcdef';
  const app = await startTestApp({ METRICS_TOKEN: token });
  t.teardown(() => app.close());
  const none = await app.request('/metrics');
  t.is(none.status, 401);
  t.deepEqual(Object.keys(await none.json()), ['error']);
  t.is((await app.request('/metrics', { headers: { Authorization: `Bearer ${token}x` } })).status, 401);
  t.is((await app.request('/metrics', { headers: { Authorization: `Basic ${token}` } })).status, 401);
  const ok = await app.request('/metrics', { headers: { Authorization: `Bearer ${token}` } });
  t.is(ok.status, 200);
  t.regex(await ok.text(), /imgpost_http_request_duration_seconds/);
});

test('METRICS_TOKEN unset: /metrics answers loopback clients only; others get 404', async (t) => {
  const app = await startTestApp({ TRUST_PROXY: '1' });
  t.teardown(() => app.close());
  t.is((await app.request('/metrics')).status, 200, 'loopback');
  // Behind a trusted proxy on this host, a forwarded public client is not loopback.
  const forwarded = await app.request('/metrics', { headers: { 'X-Forwarded-For': '203.0.113.9' } });
  t.is(forwarded.status, 404);
  t.deepEqual(await forwarded.json(), { error: 'not found' });

  // And a real connection from a non-loopback address of this host, straight to the service.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  if (!external) {
    t.log('this host has no non-loopback IPv4 address; the forwarded case above stands for it');
    return;
  }
  const direct = await startTestApp({ TRUST_PROXY: '0' });
  t.teardown(() => direct.close());
  const server = await listen(createApp(direct.services), external.address, 0);
  t.teardown(() => server.close(500));
  t.is((await fetch(`http://${external.address}:${server.port}/metrics`)).status, 404);
  t.is(
    (await fetch(`http://${external.address}:${server.port}/healthz`)).status,
    200,
    'the rest of the service answers there',
  );
  t.is((await direct.request('/metrics')).status, 200);
});

test('a body refused before it is read (413, connection closed) is logged with its address and stays a JSON 413', async (t) => {
  // The request log read the address after the refused request's socket was gone, and that threw
  // past the error handler: a bare text/plain 500 (found by the fuzz test).
  const app = await startTestApp({ TRUST_PROXY: '0' });
  t.teardown(() => app.close());
  const res = await send(app.server.port, {
    label: 'big',
    method: 'POST',
    target: '/image/search',
    // Within the hard cap, past the JSON limit: refused while it is being read.
    headers: [
      ['Host', 'x'],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(2 * JSON_BODY_LIMIT)],
      ['Connection', 'close'],
    ],
    body: Buffer.alloc(2 * JSON_BODY_LIMIT, 0x20),
  });
  t.is(res.status, 413, res.head);
  t.regex(res.head, /content-type: application\/json/i);
  t.regex(res.head, /x-request-id:/i);
  const line = app.logs
    .map((l) => JSON.parse(l) as { msg?: string; status?: number; ip?: string })
    .find((l) => l.msg === 'request' && l.status === 413);
  t.is(line?.ip, '127.0.0.1');
});
