/**
 * Webhook limits over HTTP (docs/decisions.md §8): a rendered body is at most 256 KiB (262,144 bytes,
 * counted in UTF-8 bytes) — checked when a webhook is saved or patched, on preview, and again at
 * delivery, where real data can make it larger than the sample did — and
 * `GET /api/webhook/[id]/deliveries` lists the latest 50 attempts, newest first.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { eventually, startReceiver, type Receiver } from './receiver.ts';

const LIMIT = 256 * 1024;

let app: TestApp;
let receiver: Receiver;

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  receiver = await startReceiver(200);
});
test.after.always(async () => {
  await app?.close();
  await receiver?.close();
});

async function api(user: TestUser, method: string, path: string, body?: unknown) {
  const res = await app.request(path, {
    method,
    headers: { ...user.headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A template rendering one JSON string of exactly `bytes` UTF-8 bytes, quotes included, made of
 * `unit` (an ASCII 'x' pads the end), so the template itself stays small: Go 1.19 cannot range over
 * a number, so a variable is doubled once per bit of the count and printed where a bit is set.
 */
function jsonStringOf(bytes: number, unit = 'x'): string {
  const u = Buffer.byteLength(unit);
  const inner = bytes - 2;
  const units = Math.floor(inner / u);
  let t = `{{$s := "${unit}"}}`;
  for (let n = units; n > 0; n = Math.floor(n / 2)) {
    if (n % 2) t += '{{$s}}';
    if (n > 1) t += '{{$s = print $s $s}}';
  }
  return `"${t}${'x'.repeat(inner - units * u)}"`;
}

/**
 * A webhook owner with a receiver of their own, and a second user who makes the posts: the deliveries
 * of these tests are told apart from the shared receiver's.
 */
async function ownWebhook(
  t: { teardown(fn: () => unknown): void; is(a: unknown, b: unknown, m?: string): void },
  settings: Record<string, unknown>,
) {
  const owner = await createUser(app);
  const poster = await createUser(app);
  const r = await startReceiver(200);
  t.teardown(() => r.close());
  const saved = await api(owner, 'POST', '/api/webhook', { url: r.url, secret: 'k', ...settings });
  t.is(saved.status, 201, JSON.stringify(saved.body));
  return { owner, poster, r, id: saved.body.id as string };
}

const hook = (template: string, events: string[] = ['create', 'update', 'delete']) => ({
  url: receiver.url,
  secret: 's3cret',
  events,
  template,
});

test.serial(
  'save and preview: a body over 256 KiB is 400 naming the template; exactly 256 KiB is accepted',
  async (t) => {
    const user = await createUser(app);

    // One byte over, in ASCII and in two-byte characters (the limit counts bytes, not characters).
    for (const [label, template] of [
      ['ascii', jsonStringOf(LIMIT + 1)],
      // 262,145 bytes but only about 131,000 characters: a limit counted in characters would let it by.
      ['utf-8', jsonStringOf(LIMIT + 1, 'é')],
      ['far over', jsonStringOf(LIMIT * 2)],
    ] as const) {
      t.true(Buffer.byteLength(template) < 600, 'the template itself is small');
      const saved = await api(user, 'POST', '/api/webhook', hook(template));
      t.is(saved.status, 400, `${label}: ${JSON.stringify(saved.body).slice(0, 300)}`);
      t.true(Array.isArray(saved.body), label);
      t.deepEqual(saved.body[0].path, ['template'], label);
      t.regex(saved.body[0].message, /262144 bytes/, label);

      for (const event of ['create', 'update', 'delete']) {
        const preview = await api(user, 'POST', '/api/webhook/preview', { template, event });
        t.is(preview.status, 400, `${label} preview ${event}`);
        t.deepEqual(preview.body[0].path, ['template']);
        t.regex(preview.body[0].message, /output exceeds 262144 bytes/, `${label} preview ${event}`);
        t.regex(preview.body[0].message, new RegExp(`${event} event`), 'the message names the event rendered');
      }
    }
    t.deepEqual((await api(user, 'GET', '/api/webhook')).body, [], 'nothing was saved');

    // Exactly at the limit: saved, and previewed in full.
    for (const [label, template] of [
      ['ascii', jsonStringOf(LIMIT)],
      ['utf-8', jsonStringOf(LIMIT, 'é')],
    ] as const) {
      const preview = await api(user, 'POST', '/api/webhook/preview', { template, event: 'update' });
      t.is(preview.status, 200, `${label}: ${JSON.stringify(preview.body).slice(0, 300)}`);
      t.is(Buffer.byteLength(preview.body.body), LIMIT, label);
      const saved = await api(user, 'POST', '/api/webhook', hook(template));
      t.is(saved.status, 201, `${label}: ${JSON.stringify(saved.body).slice(0, 300)}`);
      t.is(saved.body.template, template);
    }
    const saved = (await api(user, 'GET', '/api/webhook')).body as { id: string }[];
    t.is(saved.length, 2);
    // Out of the way of the delivery tests below.
    for (const { id } of saved) t.is((await api(user, 'DELETE', `/api/webhook/${id}`)).status, 204);
  },
);

test.serial('the limit is checked for every subscribed event, on create and on patch', async (t) => {
  const user = await createUser(app);
  // Small for create and update, too large for delete only.
  const template = `{{if eq .Event "delete"}}${jsonStringOf(LIMIT + 100)}{{else}}{"ok": true}{{end}}`;
  t.is((await api(user, 'POST', '/api/webhook/preview', { template, event: 'create' })).status, 200);
  const refused = await api(user, 'POST', '/api/webhook', hook(template));
  t.is(refused.status, 400);
  t.regex(refused.body[0].message, /delete event/);

  const saved = await api(user, 'POST', '/api/webhook', hook(template, ['create', 'update']));
  t.is(saved.status, 201, JSON.stringify(saved.body));
  const id = saved.body.id;

  // Subscribing to delete now would render too large a body: refused, the record unchanged.
  const patched = await api(user, 'PATCH', `/api/webhook/${id}`, { events: ['create', 'update', 'delete'] });
  t.is(patched.status, 400);
  t.regex(patched.body[0].message, /output exceeds 262144 bytes.*delete event/);
  const tooBig = await api(user, 'PATCH', `/api/webhook/${id}`, { template: jsonStringOf(LIMIT + 1) });
  t.is(tooBig.status, 400);
  t.deepEqual(tooBig.body[0].path, ['template']);
  const record = await api(user, 'GET', `/api/webhook/${id}`);
  t.deepEqual(record.body.events, ['create', 'update']);
  t.is(record.body.template, template);
  t.is((await api(user, 'DELETE', `/api/webhook/${id}`)).status, 204);
});

test.serial('deliveries: at most the latest 50 attempts, newest first', async (t) => {
  const { owner, poster, r, id } = await ownWebhook(t, { events: ['create', 'update'] });
  t.deepEqual((await api(owner, 'GET', `/api/webhook/${id}/deliveries`)).body, []);

  const upload = await app.request('/api/post/', {
    method: 'POST',
    headers: poster.headers,
    body: uploadForm({ image: await randomImage(91_000), metadata: { text: 'edit 0' } }),
  });
  t.is(upload.status, 201);
  const post = await upload.json();
  // 55 events in all; the edits go 11 at a time, in whatever order the server gives them, and the
  // receiver sees that order.
  const EDITS = 54;
  for (let i = 1; i <= EDITS; i += 11) {
    const batch = Array.from({ length: Math.min(11, EDITS + 1 - i) }, (_, j) =>
      api(poster, 'PUT', `/api/post/${post.id}`, { text: `edit ${i + j}` }),
    );
    for (const res of await Promise.all(batch)) t.is(res.status, 200);
  }

  const got = await r.waitFor(EDITS + 1, 30_000);
  t.is(got.length, EDITS + 1);
  const texts = got.map((x) => JSON.parse(x.body).data.text as string);
  t.is(texts[0], 'edit 0', 'the create comes first');
  t.deepEqual(
    [...texts].sort(),
    Array.from({ length: EDITS + 1 }, (_, i) => `edit ${i}`).sort(),
    'one delivery per event',
  );
  const sentIds = got.map((x) => String(x.headers['x-webhook-delivery']));

  // The attempt is recorded just after the receiver answers: wait until the newest is listed.
  const list = await eventually(async () => {
    const res = await api(owner, 'GET', `/api/webhook/${id}/deliveries`);
    return res.body.length > 0 && res.body[0].deliveryId === sentIds.at(-1) && res.body;
  });
  t.is(list.length, 50, 'at most 50');
  t.deepEqual(
    list.map((a: { deliveryId: string }) => a.deliveryId),
    sentIds.slice(-50).reverse(),
    'the latest 50, newest first',
  );
  t.false(
    list.some((a: { event: string }) => a.event === 'create'),
    'the oldest attempts (the create among them) are left out',
  );
  for (const a of list) {
    t.like(a, { event: 'update', postId: post.id, outcome: 'success', responseStatus: 200, error: null });
    t.true(Number.isFinite(a.durationMs) && a.durationMs >= 0);
  }
  const times = list.map((a: { attemptedAt: string }) => Date.parse(a.attemptedAt));
  t.true(times.every((x: number) => Number.isFinite(x)));
  t.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'attemptedAt does not increase down the list',
  );
  t.is((await api(owner, 'DELETE', `/api/webhook/${id}`)).status, 204);
});

test.serial(
  'a body that only real data makes too large fails at delivery, recorded as a failed attempt; nothing is sent',
  async (t) => {
    // 30 copies of the text: about 1.3 KB on the sample data, over 300 KB for a 10,000-character text.
    const template = `[${'{{json $.Text}}, '.repeat(30)}0]`;
    const { owner, poster, r, id } = await ownWebhook(t, { events: ['create'], template });

    const small = await app.request('/api/post/', {
      method: 'POST',
      headers: poster.headers,
      body: uploadForm({ image: await randomImage(91_001), metadata: { text: 'short' } }),
    });
    t.is(small.status, 201);
    const big = await app.request('/api/post/', {
      method: 'POST',
      headers: poster.headers,
      body: uploadForm({ image: await randomImage(91_002), metadata: { text: 'y'.repeat(10_000) } }),
    });
    t.is(big.status, 201, 'the post itself is fine');
    const bigPost = await big.json();

    const attempts = await eventually(async () => {
      const res = await api(owner, 'GET', `/api/webhook/${id}/deliveries`);
      return res.body.length === 2 && res.body;
    });
    t.like(attempts[0], { event: 'create', postId: bigPost.id, outcome: 'failure', responseStatus: null });
    t.regex(attempts[0].error, /262144/);
    t.like(attempts[1], { event: 'create', outcome: 'success', responseStatus: 200 });
    t.is(r.received.length, 1, 'only the small post was sent');
    t.is(JSON.parse(r.received[0].body).length, 31);
    const record = await api(owner, 'GET', `/api/webhook/${id}`);
    t.like(record.body, { state: 'active', failureCount: 1 });
  },
);
