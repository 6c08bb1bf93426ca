/**
 * The gallery in a real Chromium against a real app (docs/decisions.md §12, issue 15): one person logs in,
 * uploads, finds the post in the gallery and by search, edits and reverts it, meets the
 * near-duplicate warning, finds a mirrored copy, resets the access key, adds a webhook with a
 * preview and logs out. Steps run in order on one page; each fails on any console or page error
 * it did not expect. Screenshots of every page at phone and desktop width go to docs/screenshots.
 */
import anyTest, { type TestFn } from 'ava';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { browserHooks, openBrowser, ready, screenshots, type BrowserSession } from './browser.ts';

interface Context {
  app: TestApp;
  user: TestUser;
  session: BrowserSession;
  picture: Buffer;
  /** filled in by the upload step (ava gives each test a shallow copy of the context) */
  state: { postId: string };
}
const test = anyTest as TestFn<Context>;

const PASSWORD = 'correct horse battery';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

test.before(async (t) => {
  const app = await startTestApp();
  // Retries in milliseconds, not minutes, so a failing webhook is suspended within the test.
  app.services.webhookDispatcher.configure({ timeoutMs: 600, retryDelaysMs: [50, 80], pollMs: 100 });
  // create + edit + delete
  const user = await createUser(app, 0x2006, 'alice');
  const session = await openBrowser(app.url);
  t.context = { app, user, session, picture: await randomImage(4242, 320, 240), state: { postId: '' } };
});

// A step that failed early leaves its errors behind: each step starts clean.
browserHooks(test);

/** Fails the step on console errors other than failed requests with the expected statuses. */
function noErrors(t: import('ava').ExecutionContext<Context>, expectedStatuses: number[] = []): void {
  const errors = t.context.session.takeErrors();
  const unexpected = errors.filter((e) => !expectedStatuses.some((s) => e.includes(`status of ${s} `)));
  t.deepEqual(unexpected, [], 'console errors');
  for (const s of expectedStatuses)
    t.true(
      errors.some((e) => e.includes(`status of ${s} `)),
      `the expected ${s} happened`,
    );
}

test.serial('log in with the keyboard alone', async (t) => {
  const { page } = t.context.session;
  await page.goto('/login');
  await ready(page);
  await screenshots(page, 'login');
  // The username field has focus; Tab and Enter do the rest.
  await page.keyboard.type(t.context.user.name);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.pathname === '/');
  await ready(page);
  await page.locator('#nav-account a', { hasText: t.context.user.name }).waitFor();
  const cookies = await page.context().cookies();
  t.true(cookies.some((c) => c.name === 'nmsl_cookie' && c.httpOnly));
  noErrors(t);
});

test.serial('upload a picture through the page', async (t) => {
  const { page } = t.context.session;
  await page.goto('/upload');
  await ready(page);
  await page.setInputFiles('input[type=file]', {
    name: 'sunflowers.png',
    mimeType: 'image/png',
    buffer: t.context.picture,
  });
  await page.fill('#text', 'Sunflowers in a field at noon');
  await page.fill('#tags', 'sunflower yellow');
  await page.selectOption('#rating', 'moderate');
  await page.locator('.preview img').waitFor();
  await screenshots(page, 'upload');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.waitForURL(new RegExp(`/post/${UUID}$`));
  t.context.state.postId = new URL(page.url()).pathname.split('/')[2];
  await page.getByRole('heading', { level: 1, name: 'Sunflowers in a field at noon' }).waitFor();
  t.deepEqual(await page.locator('.tags a').allTextContents(), ['sunflower', 'yellow']);
  noErrors(t);
});

test.serial('the new post comes first in the gallery', async (t) => {
  const { page } = t.context.session;
  await page.goto('/');
  await ready(page);
  const first = page.locator('.grid a').first();
  t.is(await first.getAttribute('href'), `/post/${t.context.state.postId}`);
  t.is(await first.locator('img').getAttribute('alt'), 'Sunflowers in a field at noon');
  t.is(await first.locator('img').getAttribute('loading'), 'lazy');
  await screenshots(page, 'home');
  // Dark mode follows the system.
  const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  t.not(await background(), light);
  await screenshots(page, 'home-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  noErrors(t);
});

test.serial(
  'search by +tag (with a suggestion while typing; facets beside the results) and by a word with a typo',
  async (t) => {
    const { page } = t.context.session;
    await page.fill('#q', '+sunfl');
    // docs/decisions.md §19: each suggestion in its category's colour, the category in words; the keyboard
    // takes one (ArrowDown, Enter), and the next Enter searches.
    const suggestion = page.locator('#q-suggestions li[data-value="+sunflower"]');
    await suggestion.waitFor({ state: 'visible' });
    t.is(await page.getAttribute('#q', 'aria-expanded'), 'true');
    t.is(await suggestion.getAttribute('class'), 'cat-general');
    t.regex((await suggestion.textContent()) ?? '', /^sunflower \(\d+\) · general$/);
    const colour = (selector: string) => page.locator(selector).evaluate((el) => getComputedStyle(el).color);
    t.not(await colour('#q-suggestions li[data-value="+sunflower"]'), await colour('#q'));
    await page.press('#q', 'ArrowDown');
    t.is(await suggestion.getAttribute('aria-selected'), 'true');
    await page.press('#q', 'Enter');
    t.is(await page.inputValue('#q'), '+sunflower');
    await page.locator('#q-suggestions').waitFor({ state: 'hidden' });
    await page.press('#q', 'Enter');
    await page.waitForURL((url) => url.pathname === '/search' && url.searchParams.get('q') === '+sunflower');
    await ready(page);
    t.is(await page.locator('.grid a').first().getAttribute('href'), `/post/${t.context.state.postId}`);
    // Facets of the whole result beside it: the other tag, and the rating; each narrows the search.
    const yellow = page.locator('.facets a', { hasText: 'yellow' });
    await yellow.waitFor();
    t.is(await yellow.getAttribute('href'), `/search?q=${encodeURIComponent('+sunflower +yellow')}`);
    await page.locator('.facets a', { hasText: 'moderate' }).waitFor();
    // docs/decisions.md §20: the search's Atom feed (the box's text, in the gallery's spelling), and both
    // spellings in the help.
    t.is(await page.locator('a.feed').getAttribute('href'), '/posts.atom?tags=%2Bsunflower&spelling=gallery');
    t.regex((await page.locator('.syntax-help').textContent()) ?? '', /Danbooru spelling/);
    await screenshots(page, 'search');

    await page.goto(`/search?q=${encodeURIComponent('feild')}`);
    await ready(page);
    t.is(await page.locator('.grid a').first().getAttribute('href'), `/post/${t.context.state.postId}`);

    // The server reads the box; what it does not understand, the person reads (docs/decisions.md §12).
    await page.goto(`/search?q=${encodeURIComponent('+sunflower sort:random')}`);
    await ready(page);
    t.regex(
      (await page.getByRole('alert').textContent()) ?? '',
      /^Not understood: unknown sort "random" \(new, old, relevance, score, comments\) in "sort:random"\.$/,
    );
    t.is(await page.locator('.grid').count(), 0);
    noErrors(t, [400]);
  },
);

test.serial('open the post, edit its tags, see the history and revert', async (t) => {
  const { page } = t.context.session;
  await page.goto(`/post/${t.context.state.postId}`);
  await ready(page);
  await page.locator('.history .version').first().waitFor();
  await page.fill('#edit-tags', 'sunflower yellow summer');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  t.deepEqual(await page.locator('.tags a').allTextContents(), ['summer', 'sunflower', 'yellow']);

  const newest = page.locator('.history .version').first();
  await newest.getByText('Version 2').waitFor();
  t.regex(await newest.innerText(), /added summer/);
  await page
    .locator('.similar')
    .getByText(/No similar images found|bits apart/)
    .waitFor();
  await screenshots(page, 'post');

  await page.getByRole('button', { name: 'Revert to version 1' }).click();
  await page.getByText('Reverted to version 1.').waitFor();
  t.deepEqual(await page.locator('.tags a').allTextContents(), ['sunflower', 'yellow']);
  await page.locator('.history .version').first().getByText('Version 3').waitFor();
  noErrors(t);
});

test.serial(
  'the same picture again: the near-duplicate warning, then "upload anyway"; the copy is deleted',
  async (t) => {
    const { page } = t.context.session;
    await page.goto('/upload');
    await ready(page);
    await page.setInputFiles('input[type=file]', {
      name: 'again.png',
      mimeType: 'image/png',
      buffer: t.context.picture,
    });
    await page.fill('#tags', 'sunflower');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('heading', { name: 'Near-duplicates' }).waitFor();
    t.is(await page.locator('.duplicates .grid a').first().getAttribute('href'), `/post/${t.context.state.postId}`);
    t.regex(await page.getByRole('alert').innerText(), /already here/);
    await screenshots(page, 'upload-duplicate');
    // The 409 is the answer the page shows; Chromium logs every failed request.
    noErrors(t, [409]);

    await page.getByRole('button', { name: 'Upload anyway' }).click();
    await page.waitForURL(new RegExp(`/post/${UUID}$`));
    const second = new URL(page.url()).pathname.split('/')[2];
    t.not(second, t.context.state.postId);
    await ready(page);
    // The copy goes again: delete asks once more, then removes it.
    await page.getByRole('button', { name: 'Delete this post…' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await ready(page);
    t.is(await page.locator(`.grid a[href="/post/${second}"]`).count(), 0);
    t.is((await t.context.app.request(`/api/post/${second}`)).status, 404);
    noErrors(t);
  },
);

test.serial('find the post on the similar page from a mirrored copy', async (t) => {
  const { page } = t.context.session;
  const mirrored = await sharp(t.context.picture).flop().png().toBuffer();
  await page.goto('/similar');
  await ready(page);
  await page.setInputFiles('input[type=file]', { name: 'mirrored.png', mimeType: 'image/png', buffer: mirrored });
  const match = page.locator(`.grid a[href="/post/${t.context.state.postId}"]`);
  await match.waitFor();
  t.regex(await match.innerText(), /mirrored/);
  await screenshots(page, 'similar');
  noErrors(t);
});

test.serial('reset the access key', async (t) => {
  const { page } = t.context.session;
  const { app, user } = t.context;
  await page.goto('/account');
  await ready(page);
  await page.getByRole('button', { name: 'Show access key' }).click();
  t.is(await page.locator('#access-key').innerText(), user.accessKey);
  await page.getByRole('button', { name: 'Reset access key…' }).click();
  await page.getByRole('button', { name: 'Yes, reset it' }).click();
  await page.getByText('A new access key was made').waitFor();
  const fresh = await page.locator('#access-key').innerText();
  t.not(fresh, user.accessKey);
  t.is((await app.request('/api/account', { headers: { 'X-Access-Key': user.accessKey } })).status, 401);
  t.is((await app.request('/api/account', { headers: { 'X-Access-Key': fresh } })).status, 200);
  noErrors(t);
});

test.serial('create a webhook with a live template preview', async (t) => {
  const { page } = t.context.session;
  await page.getByRole('button', { name: 'Add a webhook' }).click();
  await page.fill('#wh-label', 'my receiver');
  await page.fill('#wh-url', 'http://127.0.0.1:9/hook');
  await page.fill('#wh-secret', 'a secret of mine');
  await page.fill('#wh-template', '{"event": {{json .Event}}, "tags": {{json .Tags}}}');
  await page.locator('#wh-preview', { hasText: '"event": "create"' }).waitFor();
  await page.selectOption('#wh-preview-event', 'update');
  await page.locator('#wh-preview', { hasText: '"event": "update"' }).waitFor();
  // A broken template: the preview says what is wrong instead of the body.
  await page.fill('#wh-template', '{"event": {{json .Nope}}}');
  await page.locator('#wh-preview.error').waitFor();
  t.regex(await page.locator('#wh-preview').innerText(), /not accepted/);
  await page.fill('#wh-template', '{"event": {{json .Event}}}');
  await page.locator('#wh-preview:not(.error)', { hasText: '"event": "update"' }).waitFor();
  await screenshots(page, 'account-webhook-form');
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByText('Saved webhook my receiver.').waitFor();
  await page.locator('.card h3', { hasText: 'my receiver' }).waitFor();
  await page.getByRole('button', { name: 'Deliveries of my receiver' }).click();
  await page.getByText('No delivery attempts yet.').waitFor();
  const hooks = (await (
    await t.context.app.request('/api/webhook', {
      headers: { 'X-Access-Key': await page.locator('#access-key').innerText() },
    })
  ).json()) as { label: string; template: string }[];
  t.deepEqual(
    hooks.map((h) => [h.label, h.template]),
    [['my receiver', '{"event": {{json .Event}}}']],
  );
  // The broken template's preview was a 400 the page showed.
  noErrors(t, [400]);
});

test.serial('a suspended webhook shows its failed deliveries and is re-activated', async (t) => {
  const { page } = t.context.session;
  const { app } = t.context;
  const key = await page.locator('#access-key').innerText();
  // Nothing listens on port 9: the create event fails three times and suspends the webhook.
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: { 'X-Access-Key': key },
    body: uploadForm({ image: await randomImage(999, 96, 64) }),
  });
  t.is(res.status, 201);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const hooks = (await (await app.request('/api/webhook', { headers: { 'X-Access-Key': key } })).json()) as {
      state: string;
    }[];
    if (hooks[0]?.state === 'suspended') break;
    if (Date.now() > deadline) return t.fail('the webhook was not suspended');
    await new Promise((r) => setTimeout(r, 100));
  }
  await page.reload();
  await ready(page);
  await page.locator('.card strong', { hasText: 'suspended' }).waitFor();
  await page.getByRole('button', { name: 'Deliveries of my receiver' }).click();
  // The table arrives with the answer to that click.
  await page.locator('.deliveries tbody tr').nth(2).waitFor();
  t.is(await page.locator('.deliveries tbody tr').count(), 3);
  t.deepEqual([...new Set(await page.locator('.deliveries tbody td:nth-child(4)').allTextContents())], ['failure']);
  await screenshots(page, 'account');
  await page.getByRole('button', { name: 'Re-activate my receiver' }).click();
  await page.getByText('my receiver is active again.').waitFor();
  await page.locator('.card strong', { hasText: 'active' }).waitFor();
  noErrors(t);
});

test.serial('edit the webhook, then delete it', async (t) => {
  const { page } = t.context.session;
  await page.getByRole('button', { name: 'Edit my receiver' }).click();
  await page.fill('#wh-label', 'renamed receiver');
  await page.getByRole('checkbox', { name: 'delete', exact: true }).uncheck();
  await page.getByRole('button', { name: 'Save webhook' }).click();
  await page.getByText('Saved webhook renamed receiver.').waitFor();
  // The list re-renders after the message: wait for the saved card rather than read it at once (under
  // load the old card was still there).
  const card = page.locator('.card', { hasText: 'renamed receiver' });
  await card.waitFor();
  t.regex(await card.innerText(), /Events: create, update ·/);
  await page.getByRole('button', { name: 'Delete renamed receiver' }).click();
  await page.getByText('Deleted renamed receiver.').waitFor();
  await page.getByText('No webhooks yet.').waitFor();
  noErrors(t);
});

test.serial('log out', async (t) => {
  const { page } = t.context.session;
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await ready(page);
  await page.locator('#nav-account a', { hasText: 'Log in' }).waitFor();
  const cookies = await page.context().cookies();
  t.false(cookies.some((c) => c.name === 'nmsl_cookie'));
  noErrors(t);
});
