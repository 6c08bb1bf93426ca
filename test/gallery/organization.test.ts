/**
 * Pools and tag categories in a real Chromium at phone width (issue 38, docs/decisions.md §19): an editor
 * makes a pool from a search's results, reorders it with the move buttons, and reads it page by page
 * with previous/next on each post page; a tag governor sets a tag's category on the tag page and the
 * post page shows the tag in that category's colour, with the legend; the home and search grids show a
 * thumbnail's tags in their colours on hover and keyboard focus, and on a touch screen without either.
 * Screenshots of the pool page at both widths go to docs/screenshots (pool).
 */
import fs from 'node:fs';
import path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { imgpost } from '../cli/run-cli.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import type { Page } from 'playwright-core';
import {
  DESKTOP,
  logInByKeyboard,
  openBrowser,
  PHONE,
  ready,
  screenshots,
  shows,
  type BrowserSession,
} from './browser.ts';

interface Context {
  app: TestApp;
  editor: TestUser;
  session: BrowserSession;
  /** the four pages of the comic, oldest first */
  pages: string[];
}
const test = anyTest as TestFn<Context>;
const PASSWORD = 'correct horse battery';

test.before(async (t) => {
  const app = await startTestApp();
  const editor = await createUser(app, 0x2 | 0x4 | 0x1000, 'olga');
  const pages: string[] = [];
  for (let i = 1; i <= 4; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: editor.headers,
      body: uploadForm({
        image: await randomImage(3800 + i, 320, 240),
        // Page 1 carries the tag made an artist below, and a tag name that looks like markup.
        metadata: { text: `Page ${i}`, tags: ['comic38', ...(i === 1 ? ['painter38', '<i>x38</i>'] : [])] },
        force: '1',
      }),
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status}`);
    pages.push((await res.json()).id);
  }
  const session = await openBrowser(app.url);
  await session.page.setViewportSize(PHONE);
  t.context = { app, editor, session, pages };
});

test.after.always(async (t) => {
  await t.context.session?.close();
  await t.context.app?.close();
});

/**
 * Each category's colour as the stylesheet gives it, read from a probe element (no named function: the
 * test's transpiler would wrap it in a helper the page does not have).
 */
const categoryColours = (page: Page): Promise<{ artist: string; general: string }> =>
  page.evaluate(
    (classes) => {
      const out: Record<string, string> = {};
      for (const cls of classes) {
        const el = document.createElement('span');
        el.className = cls;
        document.body.append(el);
        out[cls] = getComputedStyle(el).color;
        el.remove();
      }
      return { artist: out['cat-artist'], general: out['cat-general'] };
    },
    ['cat-artist', 'cat-general'],
  );
const poolOrder = async (t: import('ava').ExecutionContext<Context>, id: string): Promise<string[]> =>
  (await (await t.context.app.request(`/api/pool/${id}`)).json()).postIds;

test.serial('make a pool from a search, reorder it with buttons, read it with previous/next', async (t) => {
  const { page } = t.context.session;
  const { pages } = t.context;
  await logInByKeyboard(page, t.context.editor.name, PASSWORD);
  await page.goto(`/search?q=${encodeURIComponent('+comic38')}`);
  await ready(page);
  await page.getByText('Make a pool of these results').click();
  await page.getByLabel('Pool name').fill('My comic');
  await page.getByRole('button', { name: 'Create pool' }).click();
  await page.waitForURL(/\/pool\/\d+$/);
  await ready(page);
  const poolId = new URL(page.url()).pathname.split('/').pop()!;
  await page.getByRole('heading', { name: 'My comic' }).waitFor();
  // The search's order (newest first) is the pool's.
  const newestFirst = [...pages].reverse();
  t.deepEqual(await poolOrder(t, poolId), newestFirst);
  t.is(await page.locator('.pool-pages img').count(), 4);

  // Reorder into reading order (oldest first) with the move buttons alone: no dragging.
  for (let i = 0; i < 3; i++) {
    // The last page of the list moves up to place i.
    for (let k = 3; k > i; k--) {
      const row = page.locator('.pool-order li').nth(k);
      await row.getByRole('button', { name: /^↑/ }).click();
    }
  }
  await page.getByRole('button', { name: 'Save order' }).click();
  await page.getByText('Order saved.').waitFor();
  t.deepEqual(await poolOrder(t, poolId), pages);
  await screenshots(page, 'pool');
  await page.setViewportSize(PHONE);

  // Page by page, as a reader: Next from the first to the last, then Previous once.
  await page.locator('.pool-pages a').first().click();
  const seen: string[] = [];
  for (;;) {
    await ready(page);
    seen.push(new URL(page.url()).pathname.split('/').pop()!);
    const nav = page.getByRole('navigation', { name: 'Pool My comic' });
    await nav.waitFor();
    t.true(await shows(nav.getByText(`${seen.length} of 4`)));
    const next = nav.getByRole('link', { name: 'Next →' });
    if ((await next.count()) === 0) break;
    await next.click();
    await page.waitForURL((url) => !url.pathname.endsWith(seen[seen.length - 1]));
  }
  t.deepEqual(seen, pages);
  await page.getByRole('navigation', { name: 'Pool My comic' }).getByRole('link', { name: '← Previous' }).click();
  await page.waitForURL((url) => url.pathname === `/post/${pages[2]}`);
  t.deepEqual(t.context.session.takeErrors(), []);
});

test.serial("set a tag's category on the tag page; the post page shows the tag in its colour", async (t) => {
  const { page } = t.context.session;
  await page.goto('/tag/painter38');
  await ready(page);
  await page.getByLabel('Category').selectOption('artist');
  await page.getByRole('button', { name: 'Set category' }).click();
  await page.getByText('Category set.').waitFor();
  t.true(await shows(page.getByText('Category: artist')));

  await page.goto(`/post/${t.context.pages[0]}`);
  await ready(page);
  const tag = page.locator('.details .tags a', { hasText: 'painter38' });
  await tag.waitFor();
  t.is(await tag.getAttribute('data-category'), 'artist');
  const colours = await categoryColours(page);
  t.is(await tag.evaluate((el) => getComputedStyle(el).color), colours.artist);
  t.not(colours.artist, colours.general);
  // Artist tags come first, and the legend names the colours.
  t.is(await page.locator('.details .tags:not(.legend) a').first().textContent(), 'painter38');
  t.true(await shows(page.getByRole('list', { name: 'Tag colours' })));
  t.deepEqual(t.context.session.takeErrors(), []);
});

test.serial(
  "the grid shows a post's tags in their colours on hover, on keyboard focus, and always on a touch screen",
  async (t) => {
    const { page } = t.context.session;
    const first = t.context.pages[0];
    await page.setViewportSize(DESKTOP);
    const cellOf = (p: Page) => p.locator('.grid li', { has: p.locator(`a[href="/post/${first}"]`) });
    const artistTag = (p: Page) => cellOf(p).locator('.tag-peek [data-category="artist"]', { hasText: 'painter38' });

    // Home page: hidden until the cell is hovered, then the artist tag in the artist colour.
    await page.goto('/');
    await ready(page);
    const peek = cellOf(page).locator('.tag-peek');
    const link = cellOf(page).locator('a');
    t.is(await link.getAttribute('aria-describedby'), await peek.getAttribute('id'));
    t.false(await peek.isVisible());
    await cellOf(page).hover();
    t.true(await shows(artistTag(page)));
    const colours = await categoryColours(page);
    t.is(await artistTag(page).evaluate((el) => getComputedStyle(el).color), colours.artist);
    t.true((await artistTag(page).getAttribute('class'))?.split(' ').includes('cat-artist'));
    // Artist first; the markup-like name is text, and the category is said in words to screen readers.
    t.is(await peek.locator('[data-category]').first().textContent(), 'painter38');
    t.true((await peek.textContent())?.includes('<i>x38</i> (general), '));
    t.is(await peek.locator('i').count(), 0);
    t.true(await shows(page.getByRole('list', { name: 'Tag colours' })));

    // Keyboard: Tab onto the thumbnail's link (mouse away) shows the list too.
    await page.mouse.move(0, 0);
    await peek.waitFor({ state: 'hidden' });
    await page.locator('.grid a').first().focus();
    for (let i = 0; i < 8 && !(await link.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    t.true(await link.evaluate((el) => el === document.activeElement));
    t.true(await shows(artistTag(page)));

    // Search results name their tags only: the categories arrive after the grid, and colour it.
    await page.goto(`/search?q=${encodeURIComponent('+comic38')}`);
    await ready(page);
    await cellOf(page).hover();
    t.true(await shows(artistTag(page)));
    t.is(await artistTag(page).evaluate((el) => getComputedStyle(el).color), colours.artist);
    t.deepEqual(t.context.session.takeErrors(), []);

    // A phone (touch, nothing hovers): the list is under every thumbnail without any gesture.
    const phone = await t.context.session.browser.newContext({
      baseURL: t.context.app.url,
      viewport: PHONE,
      hasTouch: true,
      isMobile: true,
      colorScheme: 'light',
    });
    try {
      const touch = await phone.newPage();
      const errors: string[] = [];
      touch.on('pageerror', (err) => errors.push(err.message));
      await touch.goto('/');
      await ready(touch);
      t.true(await touch.evaluate(() => matchMedia('(hover: none)').matches));
      t.true(await shows(artistTag(touch)));
      t.is(await artistTag(touch).evaluate((el) => getComputedStyle(el).color), colours.artist);
      t.deepEqual(errors, []);
    } finally {
      await phone.close();
    }
  },
);

test.serial(
  "an imported post's page shows its origin, linked, and its imported comment's author, as text",
  async (t) => {
    const { app, session } = t.context;
    const { page } = session;
    const dir = tempDir('imgpost-gallery-import');
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, '5.png'), await randomImage(3850, 320, 240));
    fs.writeFileSync(
      path.join(dir, '5.png.json'),
      JSON.stringify({
        id: 5,
        created_at: '2021-01-02T03:04:05.000Z',
        md5: '',
        rating: 'g',
        source: '',
        tag_string: 'imported48',
        tag_string_general: 'imported48',
        uploader: { id: 3, name: '<b>up48</b>' },
        comments: [
          { id: 9, body: 'from <i>there</i>', creator_name: '<i>old48</i>', created_at: '2021-02-03T00:00:00Z' },
        ],
        category: 'danbooru',
      }),
    );
    const r = await imgpost(app, 'import', dir, '--json');
    t.is(r.code, 0, r.stderr);
    const id = [...app.services.postRepository.batches(100)].flat().find((p) => p.origins.length > 0)!.id;
    await page.goto(`/post/${id}`);
    await ready(page);
    const origin = page.locator('a.origin');
    await origin.waitFor();
    t.is(await origin.textContent(), 'danbooru #5');
    t.is(await origin.getAttribute('href'), 'https://danbooru.donmai.us/posts/5');
    t.is(await origin.getAttribute('rel'), 'nofollow noopener ugc');
    t.true(await shows(page.getByText('uploaded by <b>up48</b>')));
    t.true(await shows(page.getByText('<i>old48</i> (imported)')));
    t.is(await page.locator('.details b, .comment-meta i').count(), 0, 'names from elsewhere are text');
    t.deepEqual(session.takeErrors(), []);
  },
);
