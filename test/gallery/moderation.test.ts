/**
 * Moderation and the tag page in a real Chromium (issue 24, docs/decisions.md §15): one person asks for a
 * post's removal with a reason, a moderator sees it in the queue and approves, and the post is gone;
 * the tag page shows the count, aliases and implications, and a tag governor adds an alias there.
 * A moderator merges a near-duplicate into the post it copies from the post page, and a captioned
 * copy (a robust match, docs/decisions.md §16) from its "Possible duplicates"; the upload page shows
 * possible duplicates as soon as a cropped copy is chosen. Screenshots at
 * both widths go to docs/screenshots (moderation, post-request-deletion, tag).
 */
import anyTest, { type TestFn } from 'ava';
import fs from 'node:fs';
import { TRANSFORMS } from '../../bench/robust/transforms.ts';
import { descriptorsSettled, startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import {
  browserHooks,
  logInByKeyboard,
  openBrowser,
  ready,
  screenshots,
  shows,
  type BrowserSession,
} from './browser.ts';

interface Context {
  app: TestApp;
  requester: TestUser;
  moderator: TestUser;
  session: BrowserSession;
  postId: string;
  /** two uploads of one picture: a near-duplicate pair to merge */
  copies: { id: string }[];
  /** a photograph and a captioned copy of it: a robust match the hash misses */
  photo: { id: string };
  captioned: { id: string };
}
const PHOTO = new URL('../fixtures/photos/chelsea.jpg', import.meta.url).pathname;
const robustCopy = (name: string) => TRANSFORMS.find((x) => x.name === name)!.apply(PHOTO, 0);
const test = anyTest as TestFn<Context>;
const PASSWORD = 'correct horse battery';

test.before(async (t) => {
  const app = await startTestApp({ ROBUST_DESCRIPTORS: '1' });
  const requester = await createUser(app, 0x2 | 0x4, 'rosa');
  const moderator = await createUser(app, 0x2 | 0x4 | 0x1000 | 0x2000, 'maud');
  const upload = async (seed: number | Buffer, metadata: unknown) => {
    const image = typeof seed === 'number' ? await randomImage(seed, 320, 240) : seed;
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: requester.headers,
      body: uploadForm({ image, metadata, force: '1' }),
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status}`);
    return (await res.json()) as { id: string };
  };
  const post = await upload(2401, { text: 'A cat asleep on the sofa', tags: ['cat', 'sofa'] });
  await upload(2402, { text: 'Another cat', tags: ['cat', 'animal'] });
  const copies = [await upload(2403, { tags: ['beach'] }), await upload(2403, { tags: ['sunset'] })];
  const photo = await upload(fs.readFileSync(PHOTO), { tags: ['chelsea'] });
  const captioned = await upload(await robustCopy('caption'), { tags: ['meme'] });
  await descriptorsSettled(app);
  const govern = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { ...moderator.headers, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  };
  await govern('PUT', '/api/tag/kitty/alias', { target: 'cat' });
  await govern('PUT', '/api/tag/cat/implies/animal');
  const session = await openBrowser(app.url);
  t.context = { app, requester, moderator, session, postId: post.id, copies, photo, captioned };
});

browserHooks(test);

async function logIn(t: import('ava').ExecutionContext<Context>, user: TestUser): Promise<void> {
  const { page } = t.context.session;
  // Whoever was logged in before leaves: the page's marker, then the HttpOnly cookie.
  if (page.url().startsWith(t.context.app.url)) await page.evaluate(() => localStorage.clear());
  await page.context().clearCookies();
  await logInByKeyboard(page, user.name, PASSWORD);
  t.deepEqual(t.context.session.takeErrors(), [], 'console errors while logging in');
}

test.serial(
  'request deletion as one user; a moderator sees it in the queue and approves; the post is gone',
  async (t) => {
    const { page } = t.context.session;
    await logIn(t, t.context.requester);
    await page.goto(`/post/${t.context.postId}`);
    await ready(page);
    // Keyboard only: focus the button, open the form, type the reason, send.
    await page.getByRole('button', { name: 'Request deletion…' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('This is a repost of an older picture.');
    await page.getByRole('button', { name: 'Send request' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Your request was sent to the moderators.').waitFor();
    await screenshots(page, 'post-request-deletion');

    await logIn(t, t.context.moderator);
    await page.getByRole('link', { name: 'Moderation' }).click();
    await ready(page);
    const card = page.locator('.card.request', { hasText: 'This is a repost of an older picture.' });
    await card.waitFor();
    t.true(await shows(card.getByText('rosa')));
    t.true(await shows(card.locator('img')));
    await screenshots(page, 'moderation');
    await card.getByRole('button', { name: /^Approve the request/ }).click();
    await card.getByText('Approved: the post was deleted.').waitFor();

    await page.goto(`/post/${t.context.postId}`);
    await ready(page);
    await page.getByRole('heading', { name: 'No such post' }).waitFor();
    const res = await t.context.app.request(`/api/post/${t.context.postId}`);
    t.is(res.status, 404);
    // The post page's own 404 is the only failed request.
    t.deepEqual(
      t.context.session.takeErrors().filter((e) => !e.includes('status of 404 ')),
      [],
    );
  },
);

test.serial('the tag page: count, aliases, implications, newest posts; a governor adds an alias', async (t) => {
  const { page } = t.context.session;
  await page.goto('/tag/cat');
  await ready(page);
  await page.getByRole('heading', { name: 'Tag cat' }).waitFor();
  t.regex((await page.locator('.count').textContent()) ?? '', /^1 post/);
  t.deepEqual(await page.getByRole('list', { name: 'Aliases' }).locator('a').allTextContents(), ['kitty']);
  t.deepEqual(await page.getByRole('list', { name: 'Implies' }).locator('a').allTextContents(), ['animal']);
  t.is(
    await page
      .getByRole('list', { name: /^Newest posts tagged cat/ })
      .locator('li')
      .count(),
    1,
  );

  await page.getByLabel('New alias of this tag').fill('feline');
  await page.getByLabel('New alias of this tag').press('Enter');
  await page.getByText('Alias added.').waitFor();
  t.deepEqual(await page.getByRole('list', { name: 'Aliases' }).locator('a').allTextContents(), ['feline', 'kitty']);
  await screenshots(page, 'tag');
  t.deepEqual(t.context.session.takeErrors(), []);
});

test.serial('"merge into this" beside a near-duplicate: the copy goes, its tags join the kept post', async (t) => {
  const { page } = t.context.session;
  const [kept, copy] = t.context.copies;
  await page.goto(`/post/${copy.id}`);
  await ready(page);
  const merge = page.getByRole('button', {
    name: `Merge this post into post ${kept.id.slice(0, 8)}: its tags join that post and this one is deleted`,
  });
  await merge.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.pathname === `/post/${kept.id}`);
  await ready(page);
  t.deepEqual(await page.locator('.tags a').allTextContents(), ['beach', 'sunset']);
  t.is((await t.context.app.request(`/api/post/${copy.id}`)).status, 404);
  t.deepEqual(t.context.session.takeErrors(), []);
});

test.serial(
  'possible duplicates: on the upload page when a cropped copy is chosen; "merge into this" for a captioned copy on its post page',
  async (t) => {
    const { page } = t.context.session;
    const { photo, captioned } = t.context;
    await page.goto('/upload');
    await ready(page);
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'cropped.png', mimeType: 'image/png', buffer: await robustCopy('crop10-side') });
    const possible = page.getByRole('list', { name: 'Possible duplicates' });
    t.true(await shows(possible), 'possible duplicates shown');
    t.deepEqual(await possible.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))), [
      `/post/${photo.id}`,
    ]);

    await page.goto(`/post/${captioned.id}`);
    await ready(page);
    const list = page.getByRole('list', { name: 'Possible duplicates' });
    t.true(await shows(list), 'possible duplicates listed');
    await list
      .getByRole('button', {
        name: `Merge this post into post ${photo.id.slice(0, 8)}: its tags join that post and this one is deleted`,
      })
      .click();
    await page.waitForURL((url) => url.pathname === `/post/${photo.id}`);
    await ready(page);
    t.deepEqual(await page.locator('.tags a').allTextContents(), ['chelsea', 'meme']);
    t.is((await t.context.app.request(`/api/post/${captioned.id}`)).status, 404);
    t.deepEqual(t.context.session.takeErrors(), []);
  },
);
