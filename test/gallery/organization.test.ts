/**
 * Pools and tag categories in a real Chromium at phone width (issue 38, docs/decisions.md §19): an editor
 * makes a pool from a search's results, reorders it with the move buttons, and reads it page by page
 * with previous/next on each post page; a tag governor sets a tag's category on the tag page and the
 * post page shows the tag in that category's colour, with the legend. Screenshots of the pool page
 * at both widths go to docs/screenshots (pool).
 */
import anyTest, { type TestFn } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { logInByKeyboard, openBrowser, PHONE, ready, screenshots, shows, type BrowserSession } from './browser.ts';

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
        metadata: { text: `Page ${i}`, tags: ['comic38', ...(i === 1 ? ['painter38'] : [])] },
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
  // Each category's colour as the stylesheet gives it, read from a probe element (no named function:
  // the test's transpiler would wrap it in a helper the page does not have).
  const colours = await page.evaluate(
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
  t.is(await tag.evaluate((el) => getComputedStyle(el).color), colours.artist);
  t.not(colours.artist, colours.general);
  // Artist tags come first, and the legend names the colours.
  t.is(await page.locator('.details .tags:not(.legend) a').first().textContent(), 'painter38');
  t.true(await shows(page.getByRole('list', { name: 'Tag colours' })));
  t.deepEqual(t.context.session.takeErrors(), []);
});
