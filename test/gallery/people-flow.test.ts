/**
 * The people features in a real Chromium (issue 27, docs/decisions.md §14), against an app whose PUBLIC_URL
 * is http://localhost:PORT (browsers take only a domain as WebAuthn relying party): a visitor signs
 * up, adds a passkey with Chromium's virtual authenticator, logs out and signs in with the passkey
 * (a real ceremony through @simplewebauthn/browser); makes an app key with only the create bit,
 * uploads with it and fails to edit with it; favorites a post and finds it on /favorites; changes
 * the safe-browsing preferences and sees a violent post come and go from the grid. An admin lists
 * the users and grants a permission. Screenshots of the new pages at both widths.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { addVirtualAuthenticator } from '../passkeys/authenticator.ts';
import { browserHooks, logInByForm, openBrowser, ready, screenshots, shows, type BrowserSession } from './browser.ts';

interface Context {
  app: TestApp;
  admin: TestUser;
  session: BrowserSession;
  posts: { calm: string; violent: string };
  state: { appKey: string };
}
const test = anyTest as TestFn<Context>;
const PASSWORD = 'correct horse battery';

test.before(async (t) => {
  const app = await startTestApp({ REGISTRATION: 'open' });
  const origin = `http://localhost:${app.server.port}`;
  app.services.config.publicUrl = origin;
  app.services.config.mediaUrl = `${origin}/media`;
  const admin = await createUser(app, 0x1, 'root_admin');
  const upload = async (seed: number, rating: string, text: string) => {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: admin.headers,
      body: uploadForm({ image: await randomImage(seed, 200, 150), metadata: { text, rating, tags: ['people'] } }),
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const posts = {
    calm: await upload(2701, 'none', 'a calm lake'),
    violent: await upload(2702, 'violent', 'a violent storm'),
  };
  const session = await openBrowser(origin);
  await addVirtualAuthenticator(session.page);
  t.context = { app, admin, session, posts, state: { appKey: '' } };
});
browserHooks(test);

function noErrors(t: ExecutionContext<Context>): void {
  t.deepEqual(t.context.session.takeErrors(), [], 'console errors');
}

test.serial('sign up, add a passkey, log out, sign in with the passkey', async (t) => {
  const { page } = t.context.session;
  await page.goto('/signup');
  await ready(page);
  await screenshots(page, 'signup');
  await page.getByLabel('Username').fill('newbie_27');
  await page.getByLabel('Password (at least 8 characters)').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/account');
  await ready(page);

  await page.getByLabel('Passkey name (optional)').fill('virtual key');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByText('Added virtual key').waitFor();
  t.true(await shows(page.getByRole('button', { name: 'Remove virtual key' })));

  // An app key with only the create bit, shown once.
  await page.getByLabel('App key name').fill('uploader bot');
  await page.locator('#app-key-bit-2').check();
  await page.getByRole('button', { name: 'Create app key' }).click();
  t.context.state.appKey = (await page.locator('#new-app-key').textContent())!;
  t.regex(t.context.state.appKey, /^[A-Za-z0-9_]{43}$/);
  t.true(await shows(page.getByRole('button', { name: 'Revoke uploader bot' })));
  await screenshots(page, 'account-people');

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await page.goto('/login');
  await ready(page);
  await screenshots(page, 'login-passkey');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await ready(page);
  await page.locator('#nav-account').getByRole('link', { name: 'newbie_27' }).waitFor();
  noErrors(t);
});

test.serial('the app key uploads but cannot edit', async (t) => {
  const { app } = t.context;
  const headers = { 'X-Access-Key': t.context.state.appKey };
  const created = await app.request('/api/post/', {
    method: 'POST',
    headers,
    body: uploadForm({ image: await randomImage(2703, 160, 120), metadata: { text: 'by the bot' } }),
  });
  t.is(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  const edit = await app.request(`/api/post/${id}`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'edited' }),
  });
  t.is(edit.status, 403);
});

test.serial('favorite a post, see it on /favorites; the post page previews in chat apps', async (t) => {
  const { page } = t.context.session;
  const { calm } = t.context.posts;
  await page.goto(`/post/${calm}`);
  await ready(page);
  t.is(await page.locator('meta[property="og:title"]').getAttribute('content'), 'a calm lake');
  t.regex(
    (await page.locator('meta[name="twitter:image"]').getAttribute('content'))!,
    new RegExp(`/media/${calm}\\.1024\\.webp$`),
  );
  t.true(await shows(page.getByRole('button', { name: 'Copy image' })));
  const favorite = page.locator('#favorite');
  await page.waitForFunction(() => document.querySelector('#favorite')?.textContent?.includes('(0)'));
  await favorite.click();
  await page.waitForFunction(() => document.querySelector('#favorite')?.getAttribute('aria-pressed') === 'true');
  t.regex((await favorite.textContent())!, /Favorited \(1\)/);
  await screenshots(page, 'post-favorite');

  await page.goto('/favorites');
  await ready(page);
  t.is(await page.locator(`ul.grid a[href="/post/${calm}"]`).count(), 1);
  await screenshots(page, 'favorites');
  noErrors(t);
});

test.serial('safe browsing: a violent post shows only while the preferences ask for it', async (t) => {
  const { page } = t.context.session;
  const violentLink = `ul.grid a[href="/post/${t.context.posts.violent}"]`;
  const setViolent = async (on: boolean) => {
    await page.goto('/account');
    await ready(page);
    await page.locator('#rating-violent').setChecked(on);
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Saved: the gallery shows').waitFor();
  };
  await setViolent(true);
  await page.goto('/');
  await ready(page);
  t.is(await page.locator(violentLink).count(), 1);
  await setViolent(false);
  await page.goto('/');
  await ready(page);
  t.is(await page.locator(violentLink).count(), 0);
  t.is(await page.locator(`ul.grid a[href="/post/${t.context.posts.calm}"]`).count(), 1);
  noErrors(t);
});

test.serial('an admin lists users and grants a permission', async (t) => {
  const { page } = t.context.session;
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  // Anonymous: none only, until changed for the session.
  await ready(page);
  t.is(await page.locator(`ul.grid a[href="/post/${t.context.posts.violent}"]`).count(), 0);
  await logInByForm(page, 'root_admin', PASSWORD);
  await page.goto('/admin/users');
  await ready(page);
  const row = page.getByRole('row').filter({ hasText: 'newbie_27' });
  await row.getByText('Change permission').click();
  await row.getByLabel('edit any post').check();
  await row.getByRole('button', { name: "Save newbie_27's permission" }).click();
  await row.getByText('Saved:').waitFor();
  await screenshots(page, 'admin-users');
  const users = (await (
    await t.context.app.request('/api/user?prefix=newbie', { headers: t.context.admin.headers })
  ).json()) as { data: { permission: number }[] };
  t.is(users.data[0].permission & 0x6, 0x6);
  noErrors(t);
});
