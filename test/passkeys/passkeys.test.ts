/**
 * Passkeys through HTTP with a real authenticator (docs/decisions.md §14): Chromium's virtual authenticator
 * makes and signs the credentials, the test posts them. Registration, sign-in, list, removal, and
 * every refusal: a replayed challenge, an expired one, an assertion for another origin and relying
 * party, another account's passkey, an app key, an IP address as PUBLIC_URL.
 */
import anyTest, { type TestFn } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { openBrowser, type BrowserSession } from '../gallery/browser.ts';
import { jsonInit } from '../helpers/quick-users.ts';
import { addVirtualAuthenticator, createCredential, getAssertion } from './authenticator.ts';

interface Context {
  app: TestApp;
  origin: string;
  alice: TestUser;
  bob: TestUser;
  carol: TestUser;
  dave: TestUser;
  session: BrowserSession;
}
const test = anyTest as TestFn<Context>;

test.before(async (t) => {
  // Started with an IP address as PUBLIC_URL, so start-up says once that passkeys are off (the last test).
  const app = await startTestApp({ PUBLIC_URL: 'http://127.0.0.1:1' });
  // Browsers take only a domain as relying party: the tests use localhost (docs/decisions.md §14).
  const origin = `http://localhost:${app.server.port}`;
  app.services.config.publicUrl = origin;
  const [alice, bob, carol, dave] = [
    await createUser(app, 6, 'alice_pk'),
    await createUser(app, 6, 'bob_pk'),
    await createUser(app, 6, 'carol_pk'),
    await createUser(app, 6, 'dave_pk'),
  ];
  const session = await openBrowser(origin);
  await addVirtualAuthenticator(session.page);
  // Any page of the origin will do: the ceremony runs in its JavaScript.
  await session.page.goto('/api/health');
  t.context = { app, origin, alice, bob, carol, dave, session };
});

test.after.always(async (t) => {
  await t.context.session?.close();
  await t.context.app?.close();
});

const post = (t: { context: Context }, path: string, headers: Record<string, string>, body?: unknown) =>
  t.context.app.request(path, jsonInit('POST', headers, body));

async function register(t: { context: Context }, user: TestUser, name?: string) {
  const options = await (await post(t, '/api/account/passkey/options', user.headers)).json();
  const credential = await createCredential(t.context.session.page, options);
  return {
    credential,
    res: await post(t, '/api/account/passkey', user.headers, { ...credential, ...(name ? { name } : {}) }),
  };
}

async function assertion(t: { context: Context }, body?: unknown) {
  const options = await (await post(t, '/api/account/passkey/login/options', {}, body)).json();
  return getAssertion(t.context.session.page, options);
}

test.serial('register a passkey, list it, sign in with it (Self and a working session cookie)', async (t) => {
  const { alice } = t.context;
  const options = await (await post(t, '/api/account/passkey/options', alice.headers)).json();
  t.is(options.rp.id, 'localhost');
  t.is(options.user.name, 'alice_pk');
  t.is(typeof options.challenge, 'string');

  const { res } = await register(t, alice, 'laptop');
  t.is(res.status, 201);
  const created = await res.json();
  t.like(created, { name: 'laptop', lastUsedAt: null });

  const listed = await (await t.context.app.request('/api/account/passkeys', { headers: alice.headers })).json();
  t.deepEqual(
    listed.map((p: { id: number }) => p.id),
    [created.id],
  );

  const login = await post(t, '/api/account/passkey/login', {}, await assertion(t));
  t.is(login.status, 200);
  const self = await login.json();
  t.like(self, { id: alice.id, name: 'alice_pk', accessKey: alice.accessKey });
  t.false('passwordHash' in self);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  const me = await t.context.app.request('/api/account', { headers: { cookie } });
  t.is((await me.json()).id, alice.id);
  const [after] = await (await t.context.app.request('/api/account/passkeys', { headers: alice.headers })).json();
  t.truthy(after.lastUsedAt);
});

test.serial('a replayed challenge is refused (registration and sign-in)', async (t) => {
  // bob: the authenticator holds alice's passkey already, and her options exclude it.
  const { bob } = t.context;
  const { credential, res } = await register(t, bob);
  t.is(res.status, 201);
  const again = await post(t, '/api/account/passkey', bob.headers, credential);
  t.is(again.status, 400);
  t.regex(JSON.stringify(await again.json()), /already used/);

  const signed = await assertion(t);
  t.is((await post(t, '/api/account/passkey/login', {}, signed)).status, 200);
  const replay = await post(t, '/api/account/passkey/login', {}, signed);
  t.is(replay.status, 401);
  t.regex((await replay.json()).error, /already used/);
});

test.serial('an expired challenge is refused', async (t) => {
  const signed = await assertion(t);
  // Five minutes pass (the challenge's expiry, moved rather than waited for).
  t.context.app.services.db.prepare('UPDATE webauthn_challenges SET expires_at = ?').run(Date.now() - 1);
  const res = await post(t, '/api/account/passkey/login', {}, signed);
  t.is(res.status, 401);
  t.regex((await res.json()).error, /expired/);
});

test.serial('an assertion made for another origin and relying party is refused', async (t) => {
  const signed = await assertion(t);
  // The server now stands at another address: the assertion names localhost, not it.
  t.context.app.services.config.publicUrl = `http://imgpost.test:${t.context.app.server.port}`;
  try {
    const res = await post(t, '/api/account/passkey/login', {}, signed);
    t.is(res.status, 401);
    t.regex((await res.json()).error, /origin|RP ID/i);
  } finally {
    t.context.app.services.config.publicUrl = t.context.origin;
  }
});

test.serial(
  "another account's passkey is refused: sign-in asked for carol, options made for dave, removal by bob",
  async (t) => {
    const { alice, bob, carol, dave } = t.context;
    // carol has no passkey: the options allow any, and alice's or bob's answers them.
    const signed = await assertion(t, { username: carol.name });
    const res = await post(t, '/api/account/passkey/login', {}, signed);
    t.is(res.status, 401);
    t.regex((await res.json()).error, /another account/);

    // Registration options made for dave, answered by bob.
    const options = await (await post(t, '/api/account/passkey/options', dave.headers)).json();
    const credential = await createCredential(t.context.session.page, options);
    const stolen = await post(t, '/api/account/passkey', bob.headers, credential);
    t.is(stolen.status, 400);

    const [alices] = await (await t.context.app.request('/api/account/passkeys', { headers: alice.headers })).json();
    const removal = await t.context.app.request(`/api/account/passkeys/${alices.id}`, {
      method: 'DELETE',
      headers: bob.headers,
    });
    t.is(removal.status, 404);
    t.deepEqual(await (await t.context.app.request('/api/account/passkeys', { headers: dave.headers })).json(), []);
  },
);

test.serial('an app key may not touch passkeys (403); no credential is 401', async (t) => {
  const { alice } = t.context;
  const key = await (await post(t, '/api/account/keys', alice.headers, { name: 'bot', permission: 2 })).json();
  const headers = { 'X-Access-Key': key.key };
  t.is((await post(t, '/api/account/passkey/options', headers)).status, 403);
  t.is((await t.context.app.request('/api/account/passkeys', { headers })).status, 403);
  t.is((await t.context.app.request('/api/account/passkeys/1', { method: 'DELETE', headers })).status, 403);
  t.is((await post(t, '/api/account/passkey/options', {})).status, 401);
  t.is((await t.context.app.request('/api/account/passkeys')).status, 401);
  const notCredential = await post(t, '/api/account/passkey/login', {}, { id: 'x' });
  t.is(notCredential.status, 400);
  t.true(Array.isArray(await notCredential.json()));
});

test.serial('a removed passkey no longer signs in', async (t) => {
  const { alice } = t.context;
  const signed = await assertion(t);
  for (const user of [alice, t.context.bob]) {
    const passkeys = await (await t.context.app.request('/api/account/passkeys', { headers: user.headers })).json();
    for (const p of passkeys) {
      t.is(
        (await t.context.app.request(`/api/account/passkeys/${p.id}`, { method: 'DELETE', headers: user.headers }))
          .status,
        204,
      );
    }
  }
  const res = await post(t, '/api/account/passkey/login', {}, signed);
  t.is(res.status, 401);
  t.regex((await res.json()).error, /unknown passkey/);
});

test.serial('PUBLIC_URL with an IP address: 409 and one start-up line', async (t) => {
  const { app, alice } = t.context;
  // The app started on an IP address as PUBLIC_URL before the test moved it to localhost.
  t.is(app.logs.filter((line) => line.includes('passkeys are off')).length, 1);
  app.services.config.publicUrl = `http://127.0.0.1:${app.server.port}`;
  try {
    const res = await post(t, '/api/account/passkey/options', alice.headers);
    t.is(res.status, 409);
    t.regex((await res.json()).error, /domain/);
    t.is((await post(t, '/api/account/passkey/login/options', {})).status, 409);
  } finally {
    app.services.config.publicUrl = t.context.origin;
  }
});
