/**
 * No secret ever reaches the logs: a full run at LOG_LEVEL=debug (logins good and bad, key and
 * cookie use, key reset, uploads, edits, deletes, webhooks delivered and failing, error paths),
 * then every captured log line is searched for every password, access key, cookie value and
 * webhook secret that went over the wire.
 */
import crypto from 'node:crypto';
import test from 'ava';
import { startTestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { eventually, startReceiver } from '../webhooks/receiver.ts';

const token = (label: string) => `${label}_${crypto.randomBytes(12).toString('hex')}`;

test('a debug-level run logs no password, access key, cookie or webhook secret', async (t) => {
  const app = await startTestApp({ LOG_LEVEL: 'debug' });
  const ok = await startReceiver(200);
  const failing = await startReceiver(500);
  t.teardown(async () => {
    await app.close();
    await ok.close();
    await failing.close();
  });
  const secrets = new Map<string, string>();
  const keep = (what: string, value: string) => {
    secrets.set(what, value);
    return value;
  };

  const password = keep('password', token('pw'));
  const self = await app.services.accounts.createUser({
    name: `sec${crypto.randomBytes(3).toString('hex')}`,
    password,
    permission: 0x2 | 0x4 | 0x2000,
  });
  const key = keep('access key', self.accessKey);
  const json = (headers: Record<string, string>) => ({ ...headers, 'Content-Type': 'application/json' });

  // Logins: a failure (wrong password, which is a secret too), an unknown user, then a success.
  keep('wrong password', token('wrongpw'));
  t.is(
    (
      await app.request('/api/account/login', {
        method: 'POST',
        headers: json({}),
        body: JSON.stringify({ username: self.name, password: secrets.get('wrong password') }),
      })
    ).status,
    401,
  );
  t.is(
    (
      await app.request('/api/account/login', {
        method: 'POST',
        headers: json({}),
        body: JSON.stringify({ username: 'nobody_here', password }),
      })
    ).status,
    401,
  );
  const login = await app.request('/api/account/login', {
    method: 'POST',
    headers: json({}),
    body: JSON.stringify({ username: self.name, password, ttl: 3600 }),
  });
  t.is(login.status, 200);
  const cookie = keep('cookie', /nmsl_cookie=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]);
  const byKey = { 'X-Access-Key': key };
  const byCookie = { Cookie: `nmsl_cookie=${cookie}` };

  t.is((await app.request('/api/account', { headers: byKey })).status, 200);
  t.is((await app.request('/api/account', { headers: byCookie })).status, 200);
  // Wrong credentials on their way in: a near-miss key, a tampered cookie, garbage.
  t.is(
    (await app.request('/api/account', { headers: { 'X-Access-Key': keep('wrong key', token('wrongkey')) } })).status,
    401,
  );
  t.is(
    (
      await app.request('/api/account', {
        headers: { Cookie: `nmsl_cookie=${keep('forged cookie', cookie.slice(0, -6) + 'AAAAAA')}` },
      })
    ).status,
    401,
  );

  // Webhooks: one delivering, one failing (the dispatcher logs the failures).
  const secret = keep('webhook secret', token('whsecret'));
  const failingSecret = keep('failing webhook secret', token('whfail'));
  for (const [url, s] of [
    [ok.url, secret],
    [failing.url, failingSecret],
  ]) {
    const res = await app.request('/api/webhook', {
      method: 'POST',
      headers: json(byCookie),
      body: JSON.stringify({ url, secret: s, events: ['create', 'update', 'delete'] }),
    });
    t.is(res.status, 201);
    t.false((await res.text()).includes(s), 'the record never carries the secret');
  }
  // A rejected webhook (bad template): its secret is in a request that fails validation.
  const rejected = keep('rejected webhook secret', token('whrejected'));
  t.is(
    (
      await app.request('/api/webhook', {
        method: 'POST',
        headers: json(byKey),
        body: JSON.stringify({ url: ok.url, secret: rejected, events: ['create'], template: '{{.Nope' }),
      })
    ).status,
    400,
  );

  // Posts: upload, a 409, a 400, an edit, a delete.
  const image = await randomImage(4711);
  const created = await app.request('/api/post/', {
    method: 'POST',
    headers: byKey,
    body: uploadForm({ image, metadata: { text: 'hello', tags: ['a'] } }),
  });
  t.is(created.status, 201);
  const post = await created.json();
  t.is(
    (await app.request('/api/post/', { method: 'POST', headers: byCookie, body: uploadForm({ image }) })).status,
    409,
  );
  t.is(
    (
      await app.request('/api/post/', {
        method: 'POST',
        headers: byKey,
        body: uploadForm({ image: Buffer.from('not an image') }),
      })
    ).status,
    400,
  );
  t.is(
    (
      await app.request(`/api/post/${post.id}`, {
        method: 'PUT',
        headers: json(byCookie),
        body: JSON.stringify({ text: 'edited' }),
      })
    ).status,
    200,
  );
  t.is(
    (await app.request(`/api/post/${post.id}`, { method: 'PUT', headers: json(byKey), body: '{"text":' })).status,
    400,
  );
  t.is((await app.request(`/api/post/${post.id}`, { method: 'DELETE', headers: byKey })).status, 204);
  t.is(
    (
      await app.request('/api/post/search', {
        method: 'POST',
        headers: json(byKey),
        body: JSON.stringify({ filter: [{ type: 'text', op: 'contains', value: 'x' }] }),
      })
    ).status,
    200,
  );

  // Key reset: the new key is a secret too, and the old one is now a wrong key.
  const reset = await app.request('/api/account/reset-key', { headers: byKey });
  const newKey = keep('new access key', (await reset.json()).accessKey);
  t.is((await app.request('/api/account', { headers: byKey })).status, 401);
  t.is((await app.request('/api/account', { headers: { 'X-Access-Key': newKey } })).status, 200);

  // Deliveries: the good receiver got all three events; the failing one was tried and the failure
  // logged (its retry comes 10 s later, past this test).
  await ok.waitFor(3);
  await eventually(
    () => failing.received.length >= 1 && app.logs.some((l) => /webhook delivery failed/.test(l)),
    15_000,
  );

  const logs = app.logs.join('');
  t.true(app.logs.length >= 20, `only ${app.logs.length} log lines: the run should have logged at debug`);
  t.log(`${app.logs.length} log lines, ${logs.length} characters, ${secrets.size} secrets searched`);
  for (const [what, value] of secrets) {
    t.false(logs.includes(value), `${what} appears in the logs`);
    // Also in the encodings a logger might choose.
    t.false(logs.includes(encodeURIComponent(value)), `${what} appears URL-encoded`);
    t.false(logs.includes(Buffer.from(value).toString('base64')), `${what} appears base64-encoded`);
  }
});
