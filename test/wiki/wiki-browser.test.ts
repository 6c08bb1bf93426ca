/**
 * Wiki pages in a real Chromium (docs/decisions.md §23), one browser for the file: hostile page bodies stay
 * text on the wiki page (its body, other names and history), the tag page and above a single-tag search, at
 * phone and desktop widths; a person
 * writes a page, edits it, sees its excerpt above the search, and reverts it from the history, at both widths.
 */
import anyTest, { type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import {
  browserHooks,
  DESKTOP,
  logInByForm,
  openBrowser,
  PHONE,
  ready,
  type BrowserSession,
} from '../gallery/browser.ts';

interface Context {
  app: TestApp;
  editor: TestUser;
  session: BrowserSession;
  dialogs: string[];
}
const test = anyTest as TestFn<Context>;
const PASSWORD = 'correct horse battery';

test.before(async (t) => {
  const app = await startTestApp();
  const editor = await createUser(app, 0x2 | 0x4, 'wiki_editor');
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: editor.headers,
    body: uploadForm({
      image: await randomImage(5401, 120, 90),
      metadata: { tags: ['kittens', 'spiders', 'garden_phone', 'garden_desktop'] },
    }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status}`);
  const session = await openBrowser(app.url);
  const dialogs: string[] = [];
  // A script that ran from a page body would most likely open one: none may.
  session.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  t.context = { app, editor, session, dialogs };
});
browserHooks(test);

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<svg/onload=alert(2)>',
  '[[javascript:alert(3)]] and [[<img src=x onerror=alert(4)>]]',
  '{{javascript:alert(5)}} and {{<svg/onload=alert(6)>}}',
  '<a href="javascript:alert(7)">click</a> post #1 https://example.org/x',
].join('\n\n');

/** Every element inside the wiki text is a link this page built: to a wiki page, a search, a post or the web. */
async function wikiStaysText(page: Page): Promise<{ texts: string[]; strays: string[] }> {
  return page.evaluate(() => {
    const strays: string[] = [];
    for (const el of document.querySelectorAll('.wiki-body *, .wiki-excerpt *')) {
      const href = el.getAttribute('href') ?? '';
      if (el.tagName !== 'A' || !/^(https?:\/\/|\/post\/\d+$|\/wiki\/[^/]+$|\/search\?q=)/.test(href))
        strays.push(el.outerHTML.slice(0, 80));
      for (const a of el.getAttributeNames()) if (a.startsWith('on')) strays.push(`${el.tagName} ${a}`);
    }
    if (document.querySelector('main img[src="x"], main svg')) strays.push('an image or svg in main');
    const texts = [...document.querySelectorAll('.wiki-body, .wiki-excerpt')].map((b) => b.textContent ?? '');
    return { texts, strays };
  });
}

const put = (app: TestApp, who: TestUser, tag: string, body: string, otherNames?: string[]) =>
  app.request(`/api/wiki/${tag}`, {
    method: 'PUT',
    headers: { ...who.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ body, otherNames }),
  });
const HOSTILE_NAME = '<img src=x onerror=alert(8)>';

test.serial('hostile wiki bodies stay text on the wiki page, the tag page and above the search', async (t) => {
  const { app, editor, session, dialogs } = t.context;
  const { page } = session;
  t.is((await put(app, editor, 'kittens', 'before', [HOSTILE_NAME])).status, 200);
  t.is((await put(app, editor, 'kittens', HOSTILE, [HOSTILE_NAME])).status, 200);
  const line = 'W'.repeat(50_000);
  t.is((await put(app, editor, 'spiders', line)).status, 200);
  const cases: [string, string, string][] = [
    ['/wiki/kittens', '.wiki-body', HOSTILE.replace(/\[\[(.*?)\]\]|\{\{(.*?)\}\}/g, '$1$2')],
    ['/tag/kittens', '.wiki-excerpt', '<img src=x onerror=alert(1)>'],
    ['/search?q=kittens', '.wiki-excerpt', '<img src=x onerror=alert(1)>'],
    ['/wiki/spiders', '.wiki-body', line],
    // the excerpt is the first paragraph, at most 2,000 characters of it
    ['/search?q=spiders', '.wiki-excerpt', line.slice(0, 2000)],
  ];
  for (const [url, selector, text] of cases)
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(url);
      await ready(page);
      await page.locator(selector).first().waitFor();
      const { texts, strays } = await wikiStaysText(page);
      t.deepEqual(strays, [], `${url} at ${size.width} px`);
      t.true(texts.includes(text), `${url}: shown as text`);
      t.true(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        `${url} at ${size.width} px fits`,
      );
    }
  // the links are the ones the text names, built here: no javascript: anywhere
  await page.goto('/wiki/kittens');
  await ready(page);
  await page.locator('.wiki-body a.wiki-link').first().waitFor();
  // its other names and its history (each version beside the one before) are text too
  t.is(await page.locator('.wiki-other-names').textContent(), `Other names: ${HOSTILE_NAME}`);
  await page.locator('.wiki-history details').first().locator('summary').click();
  t.deepEqual(await page.locator('.wiki-history li').first().locator('.wiki-diff pre').allTextContents(), [
    HOSTILE,
    'before',
  ]);
  t.is(await page.locator('.wiki-history *:not(li, strong, details, summary, div, pre, button)').count(), 0);
  t.is(await page.locator('main img[src="x"], main svg').count(), 0);
  const hrefs = await page.locator('.wiki-body a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  t.deepEqual(hrefs, [
    '/wiki/javascript%3Aalert(3)',
    `/wiki/${encodeURIComponent('<img_src=x_onerror=alert(4)>')}`,
    `/search?q=${encodeURIComponent('javascript:alert(5)')}`,
    `/search?q=${encodeURIComponent('<svg/onload=alert(6)>')}`,
    '/post/1',
    'https://example.org/x',
  ]);
  // a link to a page that does not exist is marked, in words too
  await page.locator('.wiki-body a.wiki-link.missing').first().waitFor();
  t.regex((await page.locator('.wiki-body a.wiki-link').first().getAttribute('title')) ?? '', /no wiki page/);
  await page.setViewportSize(DESKTOP);
  t.deepEqual(dialogs, []);
  t.deepEqual(session.takeErrors(), []);
});

for (const [width, size] of [
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)
  test.serial(`at ${width} width: write a page, edit it, see the excerpt above the search, revert it`, async (t) => {
    const { session } = t.context;
    const { page } = session;
    const tag = `garden_${width}`;
    await page.setViewportSize(size);
    await logInByForm(page, 'wiki_editor', PASSWORD);
    await page.goto(`/wiki/${tag}`);
    await ready(page);
    await page.locator('#wiki-missing').waitFor();
    await page.getByLabel(/^Text/).fill('A garden grows.\n\nSee [[kittens]].');
    await page.getByRole('button', { name: 'Create the page' }).click();
    await page.locator('.wiki-body', { hasText: 'A garden grows.' }).waitFor();
    // the [[kittens]] link is coloured by its category and not marked missing (its page exists)
    const kittens = page.locator('.wiki-body a.wiki-link', { hasText: 'kittens' });
    await page.waitForFunction(() =>
      document.querySelector('.wiki-body a.wiki-link')?.classList.contains('cat-general'),
    );
    t.false(await kittens.evaluate((a) => a.classList.contains('missing')));

    await page.getByLabel(/^Text/).fill('A garden is where things grow.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.wiki-body', { hasText: 'where things grow' }).waitFor();

    await page.goto(`/search?q=${tag}`);
    await ready(page);
    await page.locator('.wiki-excerpt', { hasText: 'A garden is where things grow.' }).waitFor();
    await page.locator('a.wiki-more').click();
    await ready(page);
    await page.getByRole('button', { name: 'Revert to version 1' }).click();
    await page.locator('.wiki-body', { hasText: 'A garden grows.' }).waitFor();
    t.is(await page.locator('.wiki-history li').count(), 3);
    t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
    // the page asked for before it existed answers 404 (docs/decisions.md §23), which Chromium logs; nothing else
    t.deepEqual(
      session.takeErrors().filter((e) => !/status of 404/.test(e)),
      [],
    );
  });
