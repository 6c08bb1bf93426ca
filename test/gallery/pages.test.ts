/**
 * The gallery beyond the main flow, in a real Chromium: failures shown in words (the wording for
 * every status; a wrong password 401, the login throttle 429, a post that is gone 404), a
 * read-only account (no edit form, no upload), keyboard order from the top of a page, and paging.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { describeFailure } from '../../src/gallery/client/failure-words.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { browserHooks, openBrowser, ready, type BrowserSession } from './browser.ts';

const test = anyTest as TestFn<{ app: TestApp; session: BrowserSession }>;

test.before(async (t) => {
  const app = await startTestApp();
  t.context = { app, session: await openBrowser(app.url) };
});
browserHooks(test);

function onlyFailedRequests(t: ExecutionContext<{ session: BrowserSession }>, statuses: number[]): void {
  const errors = t.context.session.takeErrors();
  t.deepEqual(
    errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s} `))),
    [],
    'console errors',
  );
}

test('each failure status has its own words', (t) => {
  t.is(describeFailure(401, 'invalid username/password', null), 'Wrong username or password.');
  t.regex(describeFailure(401, { error: 'x' }, null), /not logged in.*Log in/);
  t.regex(describeFailure(403, { error: 'x' }, null), /does not have permission/);
  t.regex(describeFailure(404, { error: 'x' }, null), /Not found/);
  t.is(
    describeFailure(409, { error: 'the user already has 10 webhooks' }, null),
    'Refused because of a conflict: the user already has 10 webhooks.',
  );
  t.regex(describeFailure(413, { error: 'x' }, null), /too large/);
  t.is(describeFailure(429, { error: 'x' }, '42'), 'Too many requests. Wait 42 seconds and try again.');
  t.is(
    describeFailure(503, { error: 'x' }, '5'),
    'The service is temporarily unavailable (the search index is down). Try again in 5 seconds.',
  );
  t.is(
    describeFailure(400, [{ path: ['tags', 0], message: 'too long' }], null),
    'The request was not accepted: tags.0: too long.',
  );
  t.is(describeFailure(500, { error: 'internal error' }, null), 'The server failed (status 500: internal error).');
});

test.serial('a wrong password is 401 in words; the throttle is 429 with its wait', async (t) => {
  const { app, session } = t.context;
  const { page } = session;
  const user = await createUser(app, 6);
  await page.goto('/login');
  await ready(page);
  await page.fill('#username', user.name);
  await page.fill('#password', 'not the password');
  await page.getByRole('button', { name: 'Log in' }).click();
  t.is(await page.getByRole('alert').innerText(), 'Wrong username or password.');
  // Up to the per-name-and-address limit (10 in the window), then 429.
  for (let i = 0; i < 9; i++) {
    const res = await app.request('/api/account/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: user.name, password: 'still wrong' }),
    });
    t.is(res.status, 401);
  }
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Too many requests' }).waitFor();
  t.regex(await page.getByRole('alert').innerText(), /^Too many requests\. Wait \d+ seconds and try again\.$/);
  onlyFailedRequests(t, [401, 429]);
});

test.serial('a post that is gone says so; a read-only account sees no edit form and may not upload', async (t) => {
  const { app, session } = t.context;
  const { page } = session;
  await page.goto('/post/0190c3f0-0000-7000-8000-000000000000');
  await ready(page);
  await page.getByRole('heading', { level: 1, name: 'No such post' }).waitFor();
  onlyFailedRequests(t, [404]);

  const owner = await createUser(app, 6);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: owner.headers,
    body: uploadForm({ image: await randomImage(77, 96, 64), metadata: { text: 'a read-only view', tags: ['look'] } }),
  });
  t.is(res.status, 201);
  const post = (await res.json()) as { id: string };
  const reader = await createUser(app, 0);
  await page.goto('/login');
  await ready(page);
  await page.fill('#username', reader.name);
  await page.fill('#password', 'correct horse battery');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await page.goto(`/post/${post.id}`);
  await ready(page);
  await page.getByRole('heading', { level: 1, name: 'a read-only view' }).waitFor();
  await page.locator('.history .version').first().waitFor();
  t.is(await page.locator('#edit-tags').count(), 0);
  t.is(await page.getByRole('button', { name: /Revert|Delete/ }).count(), 0);
  await page.goto('/upload');
  await ready(page);
  t.is(await page.getByRole('alert').innerText(), 'Your account does not have permission to upload.');
  onlyFailedRequests(t, []);
});

test.serial(
  'from the top of a page the keyboard reaches the skip link, then the search field, with a visible focus',
  async (t) => {
    const { page } = t.context.session;
    await page.goto('/');
    await ready(page);
    await page.keyboard.press('Tab');
    t.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    t.is(await page.evaluate(() => document.activeElement?.id), 'q');
    // Focus is visible: the outline of :focus-visible.
    t.not(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'none');
    await page.keyboard.type('+look');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/search');
    await ready(page);
    t.is(new URL(page.url()).searchParams.get('q'), '+look');
    onlyFailedRequests(t, []);
  },
);

test.serial('the newest posts are paged 24 at a time, newest first', async (t) => {
  const { app, session } = t.context;
  const { page } = session;
  const owner = await createUser(app, 6);
  const before = ((await (await app.request('/api/post/?limit=0')).json()) as { count: number }).count;
  for (let i = 0; i < 25; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: owner.headers,
      body: uploadForm({ image: await randomImage(500 + i, 96, 64), metadata: { text: `paged ${i}` } }),
    });
    t.is(res.status, 201);
  }
  const total = before + 25;
  await page.goto('/');
  await ready(page);
  t.is(await page.locator('.grid li').count(), 24);
  t.is(await page.locator('.grid img').first().getAttribute('alt'), 'paged 24');
  t.is(await page.locator('.pager [aria-current=page]').innerText(), `Page 1 of ${Math.ceil(total / 24)}`);
  await page.getByRole('link', { name: 'Older →' }).click();
  await page.waitForURL((url) => url.searchParams.get('page') === '2');
  await ready(page);
  t.is(await page.locator('.grid li').count(), total - 24);
  t.is(await page.locator('.grid img').first().getAttribute('alt'), 'paged 0');
  await page.getByRole('link', { name: '← Newer' }).click();
  await page.waitForURL((url) => url.pathname === '/' && !url.search);
  onlyFailedRequests(t, []);
});
