/**
 * Every endpoint × every kind of caller, against the expected status (docs/decisions.md §2, §8):
 * an invalid access key is 401 everywhere; an invalid or expired cookie is ignored on public
 * endpoints and 401 on protected ones; a missing permission bit is 403; somebody else's webhook
 * is 404 (super user included: webhooks are personal).
 */
import test from 'ava';
import { SessionSealer, loadSessionSecret } from '../../src/accounts/session-cookie.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const WHO = ['none', 'badKey', 'expiredCookie', 'noBit', 'owner', 'other', 'super'] as const;
type Who = (typeof WHO)[number];
type Expect = Record<Who, number>;

/** Public: anyone, except that a wrong key is refused. */
const PUBLIC = (ok: number): Expect => ({
  none: ok,
  badKey: 401,
  expiredCookie: ok,
  noBit: ok,
  owner: ok,
  other: ok,
  super: ok,
});
/** Any valid credential. */
const SIGNED_IN = (ok: number): Expect => ({
  none: 401,
  badKey: 401,
  expiredCookie: 401,
  noBit: ok,
  owner: ok,
  other: ok,
  super: ok,
});
/** A valid credential with the permission bit (owner and other have it; super has every bit). */
const PERMITTED = (ok: number): Expect => ({ ...SIGNED_IN(ok), noBit: 403 });
/** Only the owner's own record; everyone else signed in sees nothing there. */
const OWN = (ok: number): Expect => ({ ...SIGNED_IN(404), owner: ok });

interface Call {
  path: string;
  body?: BodyInit;
  json?: unknown;
}

interface Row {
  method: string;
  route: string;
  expect: Expect;
  /** builds the request for one caller (may create a fresh post or webhook for it) */
  call(who: Who): Promise<Call> | Call;
}

let app: TestApp;
const users = {} as Record<'noBit' | 'owner' | 'other' | 'super', TestUser>;
let ownerCookie: string;
let expiredCookie: string;
let post: { id: string; image: string };
let webhookId: string;
let seed = 9100;

const headersFor = (who: Who): Record<string, string> => {
  switch (who) {
    case 'none':
      return {};
    case 'badKey':
      return { 'X-Access-Key': 'not_a_valid_key_but_well_formed_0123456789' };
    case 'expiredCookie':
      return { Cookie: `nmsl_cookie=${expiredCookie}` };
    // The owner signs in with the session cookie, everyone else with a key: both credentials get used.
    case 'owner':
      return { Cookie: `nmsl_cookie=${ownerCookie}` };
    default:
      return users[who].headers;
  }
};

const freshPost = async () => {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: users.owner.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata: { tags: ['access'] } }),
  });
  if (res.status !== 201) throw new Error(`fixture upload: ${res.status}`);
  return (await res.json()) as { id: string; image: string };
};
const freshWebhook = async () =>
  (await app.services.webhooks.create(users.owner.id, { url: 'http://127.0.0.1:9/h', secret: 's', events: ['create'] }))
    .id;

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  users.noBit = await createUser(app, 0);
  users.owner = await createUser(app, 0x2 | 0x4 | 0x2000);
  users.other = await createUser(app, 0x2 | 0x4 | 0x2000);
  users.super = await createUser(app, 0x1);
  const login = await app.request('/api/account/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: users.owner.name, password: 'correct horse battery' }),
  });
  ownerCookie = /nmsl_cookie=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1];
  expiredCookie = new SessionSealer(loadSessionSecret(app.services.config)).seal({
    uid: users.owner.id,
    exp: Math.floor(Date.now() / 1000) - 1,
  });
  post = await freshPost();
  webhookId = await freshWebhook();
});
test.after.always(() => app?.close());

/** POST /api/post/upload-url once authorised: a grant on an S3 store, 409 (upload multipart) on the local one. */
const DIRECT_UPLOAD = process.env.IMGPOST_TEST_MEDIA_STORE === 's3' ? 200 : 409;

const ROWS: Row[] = [
  { method: 'GET', route: '/healthz', expect: PUBLIC(200), call: () => ({ path: '/healthz' }) },
  { method: 'GET', route: '/readyz', expect: PUBLIC(200), call: () => ({ path: '/readyz' }) },
  { method: 'GET', route: '/metrics', expect: PUBLIC(200), call: () => ({ path: '/metrics' }) },
  { method: 'GET', route: '/openapi.json', expect: PUBLIC(200), call: () => ({ path: '/openapi.json' }) },
  { method: 'GET', route: '/openapi-3.0.json', expect: PUBLIC(200), call: () => ({ path: '/openapi-3.0.json' }) },
  { method: 'GET', route: '/docs', expect: PUBLIC(200), call: () => ({ path: '/docs' }) },
  {
    method: 'POST',
    route: '/api/account/login',
    expect: PUBLIC(200),
    call: () => ({
      path: '/api/account/login',
      json: { username: users.other.name, password: 'correct horse battery' },
    }),
  },
  { method: 'GET', route: '/api/account', expect: SIGNED_IN(200), call: () => ({ path: '/api/account' }) },
  { method: 'GET', route: '/api/post/', expect: PUBLIC(200), call: () => ({ path: '/api/post/' }) },
  { method: 'GET', route: '/api/post/:id', expect: PUBLIC(200), call: () => ({ path: `/api/post/${post.id}` }) },
  { method: 'GET', route: '/media/:image', expect: PUBLIC(200), call: () => ({ path: `/media/${post.image}` }) },
  {
    method: 'POST',
    route: '/api/post/search',
    expect: PUBLIC(200),
    call: () => ({ path: '/api/post/search', json: {} }),
  },
  {
    method: 'POST',
    route: '/image/search',
    expect: PUBLIC(200),
    call: () => ({ path: '/image/search', json: { conditions: [] } }),
  },
  {
    method: 'POST',
    route: '/api/post/similar',
    expect: PUBLIC(200),
    call: async () => ({ path: '/api/post/similar', body: uploadForm({ image: await randomImage(1) }) }),
  },
  {
    method: 'GET',
    route: '/api/post/:id/similar',
    expect: PUBLIC(200),
    call: () => ({ path: `/api/post/${post.id}/similar?robust=1` }),
  },
  {
    method: 'POST',
    route: '/api/post/',
    expect: PERMITTED(201),
    call: async () => ({ path: '/api/post/', body: uploadForm({ image: await randomImage(seed++) }) }),
  },
  {
    method: 'POST',
    route: '/api/post/upload-url',
    expect: PERMITTED(DIRECT_UPLOAD),
    call: () => ({ path: '/api/post/upload-url', json: { contentType: 'image/png' } }),
  },
  {
    method: 'PUT',
    route: '/api/post/:id',
    expect: PERMITTED(200),
    call: (who) => ({ path: `/api/post/${post.id}`, json: { text: `edited by ${who}` } }),
  },
  {
    method: 'PATCH',
    route: '/api/post/:id',
    expect: PERMITTED(200),
    call: (who) => ({ path: `/api/post/${post.id}`, json: { tags: [who] } }),
  },
  {
    method: 'GET',
    route: '/api/post/:id/versions',
    expect: PUBLIC(200),
    call: () => ({ path: `/api/post/${post.id}/versions` }),
  },
  {
    method: 'POST',
    route: '/api/post/:id/revert',
    expect: PERMITTED(200),
    call: () => ({ path: `/api/post/${post.id}/revert`, json: { version: 1 } }),
  },
  { method: 'GET', route: '/api/tag', expect: PUBLIC(200), call: () => ({ path: '/api/tag?prefix=a' }) },
  { method: 'GET', route: '/api/tag/:name', expect: PUBLIC(200), call: () => ({ path: '/api/tag/access' }) },
  {
    method: 'DELETE',
    route: '/api/post/:id',
    expect: PERMITTED(204),
    call: async () => ({ path: `/api/post/${(await freshPost()).id}` }),
  },
  {
    method: 'POST',
    route: '/api/webhook',
    expect: SIGNED_IN(201),
    call: () => ({ path: '/api/webhook', json: { url: 'http://127.0.0.1:9/x', secret: 's', events: ['update'] } }),
  },
  { method: 'GET', route: '/api/webhook', expect: SIGNED_IN(200), call: () => ({ path: '/api/webhook' }) },
  {
    method: 'POST',
    route: '/api/webhook/preview',
    expect: SIGNED_IN(200),
    call: () => ({ path: '/api/webhook/preview', json: { event: 'create' } }),
  },
  { method: 'GET', route: '/api/webhook/:id', expect: OWN(200), call: () => ({ path: `/api/webhook/${webhookId}` }) },
  {
    method: 'PATCH',
    route: '/api/webhook/:id',
    expect: OWN(200),
    call: (who) => ({ path: `/api/webhook/${webhookId}`, json: { label: `by ${who}` } }),
  },
  {
    method: 'POST',
    route: '/api/webhook/:id/reactivate',
    expect: OWN(200),
    call: () => ({ path: `/api/webhook/${webhookId}/reactivate` }),
  },
  {
    method: 'GET',
    route: '/api/webhook/:id/deliveries',
    expect: OWN(200),
    call: () => ({ path: `/api/webhook/${webhookId}/deliveries` }),
  },
  {
    method: 'DELETE',
    route: '/api/webhook/:id',
    expect: OWN(204),
    call: async () => ({ path: `/api/webhook/${await freshWebhook()}` }),
  },
  // Last: it replaces the caller's key (the table then carries on with the new one).
  {
    method: 'GET',
    route: '/api/account/reset-key',
    expect: SIGNED_IN(200),
    call: () => ({ path: '/api/account/reset-key' }),
  },
];

test.serial('every endpoint × every caller', async (t) => {
  const mismatches: string[] = [];
  let checked = 0;
  for (const row of ROWS) {
    const got: string[] = [];
    for (const who of WHO) {
      const call = await row.call(who);
      const headers: Record<string, string> = {
        ...headersFor(who),
        ...(call.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
      };
      const res = await app.request(call.path, {
        method: row.method,
        headers,
        body: call.json !== undefined ? JSON.stringify(call.json) : call.body,
      });
      const body = await res.text();
      checked++;
      got.push(`${who}:${res.status}`);
      if (res.status !== row.expect[who])
        mismatches.push(
          `${row.method} ${row.route} as ${who}: ${res.status}, expected ${row.expect[who]} ${body.slice(0, 120)}`,
        );
      // 401/403/404 bodies are { error } (docs/decisions.md §3) and never leak a stack.
      if ([401, 403, 404].includes(res.status))
        t.true(typeof JSON.parse(body).error === 'string', `${row.route} ${who}: ${body}`);
      if (row.route === '/api/account/reset-key' && res.status === 200 && who !== 'owner' && who in users) {
        const u = users[who as keyof typeof users];
        u.accessKey = JSON.parse(body).accessKey;
        u.headers = { 'X-Access-Key': u.accessKey };
      }
    }
    t.log(`${row.method.padEnd(6)} ${row.route.padEnd(30)} ${got.join(' ')}`);
  }
  t.deepEqual(mismatches, []);
  t.is(checked, ROWS.length * WHO.length);
});

test.serial(
  'the old key stops working after reset-key; a cookie survives it; a forged cookie is anonymous',
  async (t) => {
    const fresh = await createUser(app, 0x2);
    const reset = await app.request('/api/account/reset-key', { headers: fresh.headers });
    t.is(reset.status, 200);
    t.is((await app.request('/api/account', { headers: fresh.headers })).status, 401);
    t.is(
      (await app.request('/api/account', { headers: { 'X-Access-Key': (await reset.json()).accessKey } })).status,
      200,
    );
    const forged = ownerCookie.slice(0, -4) + (ownerCookie.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    t.is((await app.request('/api/account', { headers: { Cookie: `nmsl_cookie=${forged}` } })).status, 401);
    t.is((await app.request('/api/post/', { headers: { Cookie: `nmsl_cookie=${forged}` } })).status, 200);
    // The key decides when both are sent: a bad key with a good cookie is 401, even on a public endpoint.
    t.is(
      (await app.request('/api/post/', { headers: { 'X-Access-Key': 'nope', Cookie: `nmsl_cookie=${ownerCookie}` } }))
        .status,
      401,
    );
    // A permission change applies to an existing cookie at once (permissions are read per request).
    app.services.db.prepare('UPDATE users SET permission = 0 WHERE id = ?').run(users.owner.id);
    const denied = await app.request(`/api/post/${post.id}`, {
      method: 'PUT',
      headers: { Cookie: `nmsl_cookie=${ownerCookie}`, 'Content-Type': 'application/json' },
      body: '{"text":"x"}',
    });
    t.is(denied.status, 403);
  },
);
