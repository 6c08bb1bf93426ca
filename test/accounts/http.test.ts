import Router from '@koa/router';
import test from 'ava';
import Koa from 'koa';
import { authenticate } from '../../src/accounts/auth-middleware.ts';
import { DEFAULT_PARAMS, hashPassword } from '../../src/accounts/passwords.ts';
import { PERMISSION, requirePermission } from '../../src/accounts/permissions.ts';
import type { AppState } from '../../src/http/context.ts';
import { errorHandler } from '../../src/http/errors.ts';
import { createLogger } from '../../src/log.ts';
import { listen } from '../../src/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { requestFrom } from '../helpers/request-from.ts';

const PASSWORD = 'correct horse battery';
const SELF_KEYS = ['accessKey', 'createdAt', 'email', 'id', 'name', 'permission'];

let counter = 0;
async function addUser(app: TestApp, permission = 6) {
  const name = `user_${process.pid}_${counter++}`;
  return app.services.accounts.createUser({ name, password: PASSWORD, permission, email: `${name}@example.org` });
}

const login = (app: TestApp, body: unknown) =>
  app.request('/api/account/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const cookieValue = (res: Response) => /^nmsl_cookie=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
const withCookie = (value: string) => ({ headers: { cookie: `nmsl_cookie=${value}` } });
const withKey = (key: string) => ({ headers: { 'x-access-key': key } });

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('login: 200 Self with every cookie attribute; Max-Age 5183940 and a matching Expires', async (t) => {
  const user = await addUser(app);
  const res = await login(app, { username: user.name, password: PASSWORD });
  t.is(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  t.deepEqual(Object.keys(body).sort(), SELF_KEYS, 'Self, never passwordHash');
  t.deepEqual(body, user);
  t.is(res.headers.get('cache-control'), 'no-store');

  const header = res.headers.get('set-cookie')!;
  const [pair, ...attributes] = header.split('; ');
  t.regex(pair, /^nmsl_cookie=[\w-]+$/);
  const attrs = Object.fromEntries(attributes.map((a) => [a.split('=')[0], a.split('=').slice(1).join('=')]));
  t.deepEqual(Object.keys(attrs).sort(), ['Expires', 'HttpOnly', 'Max-Age', 'Path', 'SameSite', 'Secure']);
  t.is(attrs.Path, '/');
  t.is(attrs['Max-Age'], '5183940');
  t.is(attrs.SameSite, 'Lax');
  const expires = Date.parse(attrs.Expires);
  const sent = Date.parse(res.headers.get('date')!);
  t.true(
    Math.abs(expires - (sent + 5183940 * 1000)) <= 2000,
    `Expires ${attrs.Expires} vs Date ${res.headers.get('date')}`,
  );

  // The cookie works, and so does the name in another case.
  t.is((await app.request('/api/account', withCookie(cookieValue(res)))).status, 200);
  t.is((await login(app, { username: user.name.toUpperCase(), password: PASSWORD })).status, 200);
});

test('login: ttl is honoured in Max-Age and in the sealed expiry', async (t) => {
  const user = await addUser(app);
  const res = await login(app, { username: user.name, password: PASSWORD, ttl: 3600 });
  t.is(res.status, 200);
  t.regex(res.headers.get('set-cookie')!, /; Max-Age=3540;/);
  const session = app.services.accounts.sessions.open(cookieValue(res))!;
  t.is(session.uid, user.id);
  t.true(Math.abs(session.exp - (Date.now() / 1000 + 3600)) < 5);
  for (const ttl of [0, 2_592_001, 1.5, '60']) {
    const bad = await login(app, { username: user.name, password: PASSWORD, ttl });
    t.is(bad.status, 400, `ttl ${ttl}`);
    t.like(((await bad.json()) as object[])[0], { path: ['ttl'] });
  }
});

test('login failure: 401 with the JSON string; unknown user the same; bad body 400', async (t) => {
  const user = await addUser(app);
  for (const body of [
    { username: user.name, password: 'wrong password' },
    { username: 'nobody_here', password: PASSWORD },
    { username: 'x y', password: '' },
  ]) {
    const res = await login(app, body);
    t.is(res.status, 401);
    t.regex(res.headers.get('content-type')!, /application\/json/);
    t.is(await res.text(), '"invalid username/password"');
    t.is(res.headers.get('set-cookie'), null);
  }
  const missing = await login(app, { username: user.name });
  t.is(missing.status, 400);
  t.like(((await missing.json()) as object[])[0], {
    code: 'invalid_type',
    expected: 'string',
    received: 'undefined',
    path: ['password'],
  });
  const notJson = await app.request('/api/account/login', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'hi',
  });
  t.is(notJson.status, 400);
});

test('PASSWORD_HASH_COST: new hashes carry it; a hash stored at another cost still logs in', async (t) => {
  // The test apps run at cost 10 (test/helpers/users.ts); production's default is 15.
  const user = await addUser(app);
  t.regex(app.services.accounts.users.getByName(user.name)!.passwordHash, /^scrypt\$10\$8\$1\$/);
  t.is((await login(app, { username: user.name, password: PASSWORD })).status, 200);
  const older = await addUser(app);
  app.services.db
    .prepare('UPDATE users SET password_hash = ? WHERE id = ?')
    .run(await hashPassword(PASSWORD, DEFAULT_PARAMS), older.id);
  t.regex(app.services.accounts.users.getByName(older.name)!.passwordHash, /^scrypt\$15\$/);
  t.is((await login(app, { username: older.name, password: PASSWORD })).status, 200);
  t.is((await login(app, { username: older.name, password: 'wrong password' })).status, 401);
});

test('GET /api/account by cookie and by key; no credential, expired or tampered cookie and bad key are 401', async (t) => {
  const user = await addUser(app);
  const cookie = cookieValue(await login(app, { username: user.name, password: PASSWORD }));

  for (const init of [withCookie(cookie), withKey(user.accessKey)]) {
    const res = await app.request('/api/account', init);
    t.is(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    t.deepEqual(Object.keys(body).sort(), SELF_KEYS);
    t.deepEqual(body, user);
  }
  t.is((await app.request('/api/account/', withKey(user.accessKey))).status, 200, 'trailing slash too');

  const sealer = app.services.accounts.sessions;
  const expired = sealer.seal({ uid: user.id, exp: Math.floor(Date.now() / 1000) - 1 });
  const raw = Buffer.from(cookie, 'base64url');
  raw[20] ^= 0x40;
  const tampered = raw.toString('base64url');
  const cases: [string, RequestInit][] = [
    ['no credential', {}],
    ['expired cookie', withCookie(expired)],
    ['one byte changed', withCookie(tampered)],
    ['truncated cookie', withCookie(cookie.slice(0, -4))],
    ['invalid key', withKey('x'.repeat(43))],
    ['empty key', withKey('')],
  ];
  for (const [label, init] of cases) {
    const res = await app.request('/api/account', init);
    t.is(res.status, 401, label);
    t.deepEqual(Object.keys((await res.json()) as object), ['error'], label);
  }
});

test('a login with a tiny ttl stops working once it expires', async (t) => {
  const user = await addUser(app);
  const res = await login(app, { username: user.name, password: PASSWORD, ttl: 1 });
  t.regex(res.headers.get('set-cookie')!, /; Max-Age=1;/);
  await new Promise((r) => setTimeout(r, 2100));
  t.is((await app.request('/api/account', withCookie(cookieValue(res)))).status, 401);
});

test('key and cookie together: the key decides; a bad key is 401 even on public endpoints, a bad cookie is ignored there', async (t) => {
  const a = await addUser(app);
  const b = await addUser(app);
  const cookieA = cookieValue(await login(app, { username: a.name, password: PASSWORD }));

  const both = await app.request('/api/account', {
    headers: { cookie: `nmsl_cookie=${cookieA}`, 'x-access-key': b.accessKey },
  });
  t.is(((await both.json()) as { id: number }).id, b.id);
  const badKey = await app.request('/api/account', {
    headers: { cookie: `nmsl_cookie=${cookieA}`, 'x-access-key': 'nope' },
  });
  t.is(badKey.status, 401);

  // GET /api/post/ is public.
  t.is((await app.request('/api/post/')).status, 200);
  t.is((await app.request('/api/post/', withCookie('garbage'))).status, 200, 'bad cookie ignored on a public endpoint');
  t.is((await app.request('/api/post/', withKey(b.accessKey))).status, 200);
  const publicBadKey = await app.request('/api/post/', withKey('A'.repeat(43)));
  t.is(publicBadKey.status, 401, 'bad key refused on a public endpoint');
  t.deepEqual(await publicBadKey.json(), { error: 'invalid access key' });
});

test('reset-key: returns a new key; the old key is 401 at once, the new one works, the cookie still works', async (t) => {
  const user = await addUser(app);
  const cookie = cookieValue(await login(app, { username: user.name, password: PASSWORD }));
  const res = await app.request('/api/account/reset-key', withKey(user.accessKey));
  t.is(res.status, 200);
  t.is(res.headers.get('cache-control'), 'no-store');
  const { accessKey, ...rest } = (await res.json()) as { accessKey: string };
  t.deepEqual(rest, {});
  t.regex(accessKey, /^[A-Za-z0-9_]{43}$/);
  t.not(accessKey, user.accessKey);
  t.is((await app.request('/api/account', withKey(user.accessKey))).status, 401);
  const now = await app.request('/api/account', withKey(accessKey));
  t.is(((await now.json()) as { accessKey: string }).accessKey, accessKey);
  t.is((await app.request('/api/account/reset-key', withCookie(cookie))).status, 200);
  t.is((await app.request('/api/account/reset-key')).status, 401);
});

test('a removed user: key and cookie are 401', async (t) => {
  const user = await addUser(app);
  const cookie = cookieValue(await login(app, { username: user.name, password: PASSWORD }));
  app.services.accounts.remove(user.name);
  t.is((await app.request('/api/account', withCookie(cookie))).status, 401);
  t.is((await app.request('/api/account', withKey(user.accessKey))).status, 401);
});

test('requirePermission with the real middleware: 401 without a credential, 403 without the bit, read fresh per request', async (t) => {
  const koa = new Koa<AppState>();
  koa.use(errorHandler(createLogger('silent')));
  koa.use(authenticate(app.services));
  const router = new Router<AppState>();
  router.post('/create', requirePermission(PERMISSION.createPost), (ctx) => {
    ctx.body = { ok: ctx.state.user!.id };
  });
  koa.use(router.routes());
  const server = await listen(koa, '127.0.0.1', 0);
  t.teardown(() => server.close(100));
  const call = (init: RequestInit = {}) => fetch(`http://127.0.0.1:${server.port}/create`, { method: 'POST', ...init });

  const editor = await addUser(app, PERMISSION.editPost);
  const creator = await addUser(app, PERMISSION.createPost);
  const superUser = await addUser(app, PERMISSION.superUser);
  const editorCookie = cookieValue(await login(app, { username: editor.name, password: PASSWORD }));

  t.is((await call()).status, 401);
  t.is((await call(withKey('bad'))).status, 401);
  t.is((await call(withCookie('bad'))).status, 401, 'an invalid cookie on a protected endpoint is 401');
  const forbidden = await call(withKey(editor.accessKey));
  t.is(forbidden.status, 403);
  t.deepEqual(await forbidden.json(), { error: 'permission denied' });
  t.is((await call(withCookie(editorCookie))).status, 403);
  t.is((await call(withKey(creator.accessKey))).status, 200);
  t.is((await call(withKey(superUser.accessKey))).status, 200, 'super user has every bit');

  // The cookie holds no permission: a change applies to the very next request.
  app.services.accounts.setPermission(editor.name, PERMISSION.createPost | PERMISSION.editPost);
  t.is((await call(withCookie(editorCookie))).status, 200);
});

test('POST /api/post/: 403 without the create bit; a super user (0x1 only) gets past the check', async (t) => {
  const editor = await addUser(app, PERMISSION.editPost);
  const superUser = await addUser(app, PERMISSION.superUser);
  const form = () => {
    const f = new FormData();
    f.append('metadata', new Blob(['{}'], { type: 'application/json' }));
    return f;
  };
  t.is((await app.request('/api/post/', { method: 'POST', body: form() })).status, 401);
  t.is((await app.request('/api/post/', { method: 'POST', body: form(), ...withKey(editor.accessKey) })).status, 403);
  // No image part: the request is refused by validation (400), past authentication and permission.
  const res = await app.request('/api/post/', { method: 'POST', body: form(), ...withKey(superUser.accessKey) });
  t.is(res.status, 400);
});

test('throttling: the 11th failed login is 429 with Retry-After; the right password still works from another address', async (t) => {
  const user = await addUser(app);
  for (let i = 0; i < 10; i++) t.is((await login(app, { username: user.name, password: `wrong ${i}` })).status, 401);
  const limited = await login(app, { username: user.name, password: 'wrong again' });
  t.is(limited.status, 429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter}`);
  t.deepEqual(Object.keys((await limited.json()) as object), ['error']);
  t.is(
    (await login(app, { username: user.name, password: PASSWORD })).status,
    429,
    'the guessing address stays blocked',
  );

  const elsewhere = await requestFrom('127.0.0.2', `${app.url}/api/account/login`, 'POST', {
    username: user.name,
    password: PASSWORD,
  });
  t.is(elsewhere.status, 200);
  t.deepEqual(Object.keys(elsewhere.body as object).sort(), SELF_KEYS);

  // Unknown names are throttled the same way (nothing to tell them apart by).
  for (let i = 0; i < 10; i++)
    await requestFrom('127.0.0.3', `${app.url}/api/account/login`, 'POST', { username: 'ghost_user', password: 'x' });
  t.is(
    (await requestFrom('127.0.0.3', `${app.url}/api/account/login`, 'POST', { username: 'ghost_user', password: 'x' }))
      .status,
    429,
  );
});

test('secrets stay out of the logs', async (t) => {
  const user = await addUser(app);
  const res = await login(app, { username: user.name, password: PASSWORD });
  await login(app, { username: user.name, password: 'a wrong password' });
  const logs = app.logs.join('');
  for (const secret of [PASSWORD, 'a wrong password', user.accessKey, cookieValue(res)]) t.false(logs.includes(secret));
});

test('sign-up is closed by default (docs/decisions.md §14): 403 { error }', async (t) => {
  const res = await app.request('/api/account/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: `closed_${process.pid}`, password: PASSWORD }),
  });
  t.is(res.status, 403);
  t.like(await res.json(), { error: 'sign-up is closed on this server' });
});
