import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { requestFrom } from '../helpers/request-from.ts';
import { jsonInit, quickUsers } from '../helpers/quick-users.ts';

// docs/decisions.md §14: sign-up, app keys, user admin, preferences. One app, sign-up open.
let app: TestApp;
test.before(async () => {
  app = await startTestApp({ REGISTRATION: 'open' });
});
test.after.always(() => app?.close());

const PASSWORD = 'correct horse battery';
const api = (path: string, method: string, headers: Record<string, string> = {}, body?: unknown) =>
  app.request(path, jsonInit(method, headers, body));
const upload = async (headers: Record<string, string>, seed: number) =>
  app.request('/api/post/', {
    method: 'POST',
    headers,
    body: uploadForm({ image: await randomImage(seed), metadata: { text: 'by a bot' } }),
  });

test('sign-up: 201 Self with the session cookie and REGISTRATION_PERMISSION; a taken name (any case) 409; the CLI rules 400', async (t) => {
  const name = `signup_${process.pid}`;
  const res = await requestFrom('127.0.0.2', `${app.url}/api/account/register`, 'POST', {
    username: name,
    password: PASSWORD,
    email: 'a@example.org',
  });
  t.is(res.status, 201);
  t.like(res.body, { name, permission: 0x4006, email: 'a@example.org' });
  t.regex(String(res.headers['set-cookie']), /^nmsl_cookie=[^;]+;.*HttpOnly/);
  const again = await requestFrom('127.0.0.2', `${app.url}/api/account/register`, 'POST', {
    username: name.toUpperCase(),
    password: PASSWORD,
  });
  t.is(again.status, 409);
  t.is(
    (await requestFrom('127.0.0.2', `${app.url}/api/account/register`, 'POST', { username: 'ab', password: PASSWORD }))
      .status,
    400,
  );
  t.is(
    (
      await requestFrom('127.0.0.2', `${app.url}/api/account/register`, 'POST', {
        username: `${name}_2`,
        password: 'short',
      })
    ).status,
    400,
  );
});

test('sign-up: the 11th from one address within the window is 429 with Retry-After; another address still signs up', async (t) => {
  for (let i = 0; i < 10; i++) {
    const res = await requestFrom('127.0.0.3', `${app.url}/api/account/register`, 'POST', {
      username: `storm_${process.pid}_${i}`,
      password: PASSWORD,
    });
    t.is(res.status, 201, `sign-up ${i + 1}`);
  }
  const eleventh = await requestFrom('127.0.0.3', `${app.url}/api/account/register`, 'POST', {
    username: `storm_${process.pid}_x`,
    password: PASSWORD,
  });
  t.is(eleventh.status, 429);
  t.truthy(eleventh.headers['retry-after']);
  t.is(
    (
      await requestFrom('127.0.0.4', `${app.url}/api/account/register`, 'POST', {
        username: `other_${process.pid}`,
        password: PASSWORD,
      })
    ).status,
    201,
  );
});

test('app keys: shown once, listed without the key; the key acts with its bits only; a bit the owner lacks is 400', async (t) => {
  const owner = await createUser(app, 0x2 | 0x4);
  const created = await api('/api/account/keys', 'POST', owner.headers, { name: 'uploader bot', permission: 0x2 });
  t.is(created.status, 201);
  const key = (await created.json()) as { id: number; key: string; permission: number };
  t.regex(key.key, /^[A-Za-z0-9_]{43}$/);
  const listed = (await (await api('/api/account/keys', 'GET', owner.headers)).json()) as Record<string, unknown>[];
  t.deepEqual(
    listed.map((k) => Object.keys(k).sort()),
    [['createdAt', 'id', 'name', 'permission']],
  );
  // The digest only: the key itself is nowhere in SQLite.
  t.false(JSON.stringify(app.services.db.prepare('SELECT * FROM app_keys').all()).includes(key.key));

  const bot = { 'X-Access-Key': key.key };
  const up = await upload(bot, 501);
  t.is(up.status, 201);
  const post = (await up.json()) as { id: string; uploader: Record<string, unknown> };
  t.is(post.uploader.id, owner.id, "uploads are the owner's");
  t.false('accessKey' in post.uploader, 'an app key never sees the account key');
  t.is((await api(`/api/post/${post.id}`, 'PUT', bot, { text: 'edited' })).status, 403, 'the key lacks edit');
  const me = (await (await api('/api/account', 'GET', bot)).json()) as Record<string, unknown>;
  t.false('accessKey' in me);
  t.is(me.permission, 0x2);

  const greedy = await api('/api/account/keys', 'POST', owner.headers, { name: 'greedy', permission: 0x2000 });
  t.is(greedy.status, 400);
});

test('app keys: an app key cannot manage keys or the account key (403); revoked is 401 next request; lowering the owner lowers the key', async (t) => {
  const owner = await createUser(app, 0x2 | 0x4);
  const make = async (permission: number) =>
    (await (await api('/api/account/keys', 'POST', owner.headers, { name: 'k', permission })).json()) as {
      id: number;
      key: string;
    };
  const a = await make(0x2 | 0x4);
  const bot = { 'X-Access-Key': a.key };
  t.is((await api('/api/account/keys', 'POST', bot, { name: 'child', permission: 0x2 })).status, 403);
  t.is((await api('/api/account/keys', 'GET', bot)).status, 403);
  t.is((await api(`/api/account/keys/${a.id}`, 'DELETE', bot)).status, 403);
  t.is((await api('/api/account/reset-key', 'GET', bot)).status, 403);

  app.services.accounts.setPermission(owner.name, 0x4);
  t.is((await upload(bot, 502)).status, 403, 'the owner lost create: so did the key');
  app.services.accounts.setPermission(owner.name, 0x2 | 0x4);
  t.is((await upload(bot, 503)).status, 201);

  t.is((await api(`/api/account/keys/${a.id}`, 'DELETE', owner.headers)).status, 204);
  t.is((await api('/api/account', 'GET', bot)).status, 401, 'revoked');
  t.is((await api(`/api/account/keys/${a.id}`, 'DELETE', owner.headers)).status, 404);
  t.is((await api('/api/account/keys', 'POST', {}, { name: 'anon', permission: 0 })).status, 401);
});

test('app keys: at most 20 per account (409)', async (t) => {
  const owner = await createUser(app, 6);
  for (let i = 0; i < 20; i++)
    t.is((await api('/api/account/keys', 'POST', owner.headers, { name: `k${i}`, permission: 2 })).status, 201);
  t.is((await api('/api/account/keys', 'POST', owner.headers, { name: 'k20', permission: 2 })).status, 409);
});

test('preferences: default none and moderate; set; bad rating 400; anonymous 401', async (t) => {
  const user = await createUser(app, 6);
  t.deepEqual(await (await api('/api/account/preferences', 'GET', user.headers)).json(), {
    ratings: ['none', 'moderate'],
    blacklist: [],
  });
  const set = await api('/api/account/preferences', 'PUT', user.headers, { ratings: ['violent', 'none', 'none'] });
  t.deepEqual(await set.json(), { ratings: ['none', 'violent'], blacklist: [] });
  t.deepEqual(await (await api('/api/account/preferences', 'GET', user.headers)).json(), {
    ratings: ['none', 'violent'],
    blacklist: [],
  });
  t.is((await api('/api/account/preferences', 'PUT', user.headers, { ratings: ['spicy'] })).status, 400);
  t.is((await api('/api/account/preferences', 'GET')).status, 401);
});

// The super-user guard counts every super user of the database: these run one at a time.
test.serial('user admin: list needs 0x100; prefix, paging; never keys', async (t) => {
  const [plain] = quickUsers(app, 1, 6);
  const [lister] = quickUsers(app, 1, 0x100);
  t.is((await api('/api/user', 'GET', plain.headers)).status, 403);
  t.is((await api('/api/user', 'GET')).status, 401);
  const page = (await (
    await api(`/api/user?prefix=${lister.name.slice(0, 8).toUpperCase()}&limit=5`, 'GET', lister.headers)
  ).json()) as { count: number; data: Record<string, unknown>[] };
  t.is(page.count, 1);
  t.deepEqual(Object.keys(page.data[0]).sort(), ['createdAt', 'email', 'id', 'name', 'permission']);
  t.is((await api('/api/user?limit=-1', 'GET', lister.headers)).status, 400);
});

test.serial(
  'user admin: edits and grants are refused without the bits (403), by bit; the last super user cannot be demoted or deleted (409)',
  async (t) => {
    const [target, editor, assigner, remover] = [
      ...quickUsers(app, 1, 6),
      ...quickUsers(app, 1, 0x200),
      ...quickUsers(app, 1, 0x800 | 0x2),
      ...quickUsers(app, 1, 0x400),
    ];
    const patch = (who: TestUser, id: number | string, body: unknown) =>
      api(`/api/user/${id}`, 'PATCH', who.headers, body);
    t.is((await patch(target, editor.id, { email: 'x@example.org' })).status, 403, "another's email needs 0x200");
    t.is((await patch(editor, target.id, { email: 'new@example.org' })).status, 200);
    t.is((await patch(editor, target.id, { permission: 2 })).status, 403, 'permission needs 0x800');
    t.is((await patch(assigner, target.id, { permission: 6 | 0x2000 })).status, 403, 'a bit the assigner lacks');
    t.is(
      (await patch(assigner, target.id, { permission: 6 | 1 })).status,
      403,
      'the super-user bit only by a super user',
    );
    const granted = await patch(assigner, target.id, { permission: 4 });
    t.is(granted.status, 200);
    t.like(await granted.json(), { permission: 4 });
    t.is((await patch(editor, 999_999, { name: 'nobody_here' })).status, 404);
    t.is((await patch(editor, 'x', { name: 'nobody_here' })).status, 404);
    t.is((await patch(editor, target.id, { name: editor.name })).status, 409, 'a taken name');
    t.is((await patch(editor, target.id, {})).status, 400);

    const [root] = quickUsers(app, 1, 0x1);
    t.is((await patch(root, root.id, { permission: 0xff1e })).status, 409, 'the last super user');
    t.is((await api(`/api/user/${root.id}`, 'DELETE', root.headers)).status, 409);
    t.is(
      (await api(`/api/user/${root.id}`, 'DELETE', remover.headers)).status,
      403,
      'a super user goes only by a super user',
    );
    t.is((await api(`/api/user/${target.id}`, 'DELETE', editor.headers)).status, 403, 'delete needs 0x400');
    const [second] = quickUsers(app, 1, 0x1);
    t.is((await patch(root, second.id, { permission: 0x2 })).status, 200, 'not the last one: may be demoted');
  },
);

test.serial("user admin: a deleted user's posts stay, disowned; their app keys stop working", async (t) => {
  const victim = await createUser(app, 6);
  const [remover] = quickUsers(app, 1, 0x400);
  const key = (await (await api('/api/account/keys', 'POST', victim.headers, { name: 'k', permission: 2 })).json()) as {
    key: string;
  };
  const post = (await (await upload(victim.headers, 504)).json()) as { id: string };
  t.is((await api(`/api/user/${victim.id}`, 'DELETE', remover.headers)).status, 204);
  t.like(await (await api(`/api/post/${post.id}`, 'GET')).json(), { id: post.id, uploaderId: null, uploader: null });
  t.is((await api('/api/account', 'GET', { 'X-Access-Key': key.key })).status, 401);
  t.is(app.services.db.prepare('SELECT count(*) FROM app_keys WHERE user_id = ?').pluck().get(victim.id), 0);
  t.is((await api(`/api/user/${victim.id}`, 'DELETE', remover.headers)).status, 404);
});
