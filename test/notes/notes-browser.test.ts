/**
 * Notes over the image in a real Chromium (docs/decisions.md §23), one browser for the file: hostile note
 * bodies stay text on the post page, and show without hover on a touch screen; at phone and desktop widths a
 * person draws a note, writes it, resizes it by its corner and moves it by dragging (past the edge: it stops
 * inside the picture), moves and resizes it with the arrow keys, each a new version, edits it in its form,
 * sees it in the same place of the picture after the window changes width, and deletes it.
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
  posts: string[];
}
const test = anyTest as TestFn<Context>;

test.before(async (t) => {
  const app = await startTestApp();
  const editor = await createUser(app, 0x2 | 0x4, 'note_editor');
  const posts: string[] = [];
  for (const seed of [5501, 5502, 5503]) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: editor.headers,
      // 400x200: wider than the 4:3 frame, so the picture is letterboxed and the notes must follow it
      body: uploadForm({ image: await randomImage(seed, 400, 200), metadata: { tags: ['noted'] } }),
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status}`);
    posts.push(((await res.json()) as { id: string }).id);
  }
  const session = await openBrowser(app.url);
  const dialogs: string[] = [];
  session.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  t.context = { app, editor, session, dialogs, posts };
});
browserHooks(test);

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<svg/onload=alert(2)>',
  '[[javascript:alert(3)]] {{javascript:alert(4)}} <a href="javascript:alert(5)">x</a>',
  'N'.repeat(10_000),
];

const notesOf = async (app: TestApp, post: string) =>
  (await (await app.request(`/api/post/${post}/note`)).json()) as {
    id: number;
    x: number;
    y: number;
    width: number;
    height: number;
    body: string;
  }[];

/** Where a note sits, as fractions of the picture's drawn area. */
async function placeOf(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const stage = document.querySelector('.note-stage')!.getBoundingClientRect();
    const img = document.querySelector('.note-frame img')!.getBoundingClientRect();
    const note = document.querySelector(sel)!.getBoundingClientRect();
    return {
      x: (note.left - stage.left) / stage.width,
      y: (note.top - stage.top) / stage.height,
      w: note.width / stage.width,
      h: note.height / stage.height,
      // the stage is the drawn picture: full width of the frame, half its width high (400x200)
      stageRatio: stage.width / stage.height,
      stageInImage: stage.left >= img.left - 1 && stage.right <= img.right + 1,
    };
  }, selector);
}

test.serial('hostile note bodies stay text on the post page', async (t) => {
  const { app, editor, session, dialogs, posts } = t.context;
  const { page } = session;
  for (const [i, body] of HOSTILE.entries()) {
    const res = await app.request(`/api/post/${posts[0]}/note`, {
      method: 'POST',
      headers: { ...editor.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ x: i * 50, y: 10, width: 40, height: 40, body }),
    });
    t.is(res.status, 201);
  }
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    await page.goto(`/post/${posts[0]}`);
    await ready(page);
    await page.locator('.note-stage[data-ready="1"]').waitFor({ state: 'attached' });
    const { texts, strays } = await page.evaluate(() => {
      const strays: string[] = [];
      for (const el of document.querySelectorAll('.note-body *')) {
        const href = el.getAttribute('href') ?? '';
        if (el.tagName !== 'A' || !/^(https?:\/\/|\/post\/\d+$)/.test(href)) strays.push(el.outerHTML.slice(0, 80));
        for (const a of el.getAttributeNames()) if (a.startsWith('on')) strays.push(`${el.tagName} ${a}`);
      }
      if (document.querySelector('main img[src="x"], main svg')) strays.push('an image or svg in main');
      return { texts: [...document.querySelectorAll('.note-body')].map((b) => b.textContent ?? ''), strays };
    });
    t.deepEqual(strays, [], `at ${size.width} px`);
    t.deepEqual(texts, HOSTILE);
    // shown on focus; the 10,000-character line wraps inside the page
    await page.locator('.note').nth(3).focus();
    t.true(await page.locator('.note-body').nth(3).isVisible());
    t.true(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `fits at ${size.width}`,
    );
    // the toggle hides them
    await page.locator('#notes-toggle').click();
    t.false(await page.locator('.note').first().isVisible());
    await page.locator('#notes-toggle').click();
    t.true(await page.locator('.note').first().isVisible());
  }
  await page.setViewportSize(DESKTOP);
  t.deepEqual(dialogs, []);
  t.deepEqual(session.takeErrors(), []);
});

test.serial('on a touch screen every note shows its text without hover or focus', async (t) => {
  const { app, session, posts } = t.context;
  const browser = session.page.context().browser()!;
  const touch = await browser.newContext({ baseURL: app.url, viewport: PHONE, hasTouch: true, isMobile: true });
  try {
    const page = await touch.newPage();
    await page.goto(`/post/${posts[0]}`);
    await ready(page);
    await page.locator('.note-stage[data-ready="1"]').waitFor({ state: 'attached' });
    t.true(await page.evaluate(() => matchMedia('(hover: none)').matches), 'a screen without hover');
    const shown = await page
      .locator('.note-body')
      .evaluateAll((bodies) => bodies.map((b) => getComputedStyle(b).display !== 'none'));
    t.deepEqual(shown, [true, true, true, true]);
  } finally {
    await touch.close();
  }
});

for (const [width, size, other, index] of [
  ['phone', PHONE, DESKTOP, 1],
  ['desktop', DESKTOP, PHONE, 2],
] as const)
  test.serial(
    `at ${width} width: draw a note, resize and move it by pointer and by keys, edit it, see it in place at another width, delete it`,
    async (t) => {
      const { app, session, posts } = t.context;
      const { page } = session;
      const post = posts[index];
      await page.setViewportSize(size);
      await logInByForm(page, 'note_editor', 'correct horse battery');
      await page.goto(`/post/${post}`);
      await ready(page);
      await page.locator('.note-stage[data-ready="1"]').waitFor({ state: 'attached' });
      await page.getByRole('button', { name: 'Add a note' }).click();
      // drag from a quarter to the middle of the picture
      const stage = (await page.locator('.note-stage').boundingBox())!;
      t.true(Math.abs(stage.width / stage.height - 2) < 0.05, 'the stage is the drawn picture (2:1)');
      await page.mouse.move(stage.x + stage.width * 0.25, stage.y + stage.height * 0.25);
      await page.mouse.down();
      await page.mouse.move(stage.x + stage.width * 0.4, stage.y + stage.height * 0.4, { steps: 4 });
      await page.mouse.move(stage.x + stage.width * 0.5, stage.y + stage.height * 0.5, { steps: 4 });
      await page.mouse.up();
      await page.getByLabel('Note text').fill('drawn here');
      await page.getByRole('button', { name: 'Add the note' }).click();
      await page.locator('.note', { hasText: 'drawn here' }).waitFor({ state: 'attached' });
      const [made] = await notesOf(app, post);
      t.is(made.body, 'drawn here');
      // the box is where it was drawn, in image pixels (400x200), within a pixel or two of rounding
      for (const [got, want] of [
        [made.x, 100],
        [made.y, 50],
        [made.width, 100],
        [made.height, 50],
      ])
        t.true(Math.abs(got - want) <= 3, `${got} ≈ ${want}`);

      // resize by the corner handle: a quarter of the picture wider and higher
      const drag = async (selector: string, dx: number, dy: number) => {
        // hovering first scrolls it into view and waits until it stands still
        await page.locator(selector).hover();
        const from = (await page.locator(selector).boundingBox())!;
        const [x, y] = [from.x + from.width / 2, from.y + from.height / 2];
        await page.mouse.move(x, y);
        await page.mouse.down();
        await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 3 });
        await page.mouse.move(x + dx, y + dy, { steps: 3 });
        await page.mouse.up();
      };
      await drag('.note .note-handle', stage.width / 4, stage.height / 4);
      await page.locator('.note[data-version="2"]').waitFor({ state: 'attached' });
      const resized = (await notesOf(app, post))[0];
      t.true(Math.abs(resized.width - 200) <= 3 && Math.abs(resized.height - 100) <= 3, JSON.stringify(resized));
      t.like(resized, { x: made.x, y: made.y });
      // drag it a whole picture right and down: it stops at the image's corner, its size kept
      await drag('.note', stage.width, stage.height);
      await page.locator('.note[data-version="3"]').waitFor({ state: 'attached' });
      const cornered = (await notesOf(app, post))[0];
      t.like(cornered, {
        x: 400 - resized.width,
        y: 200 - resized.height,
        width: resized.width,
        height: resized.height,
      });
      // the keyboard: arrows move by a hundredth of the image (4 px here), Shift+arrows resize; one version
      await page.locator('.note').focus();
      for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowLeft', 'Shift+ArrowUp']) await page.keyboard.press(key);
      await page.locator('.note[data-version="4"]:focus').waitFor({ state: 'attached' });
      t.like((await notesOf(app, post))[0], {
        x: cornered.x - 12,
        y: cornered.y,
        width: cornered.width,
        height: cornered.height - 4,
      });
      const history = (await (await app.request(`/api/note/${made.id}/history`)).json()) as { version: number }[];
      t.deepEqual(
        history.map((v) => v.version),
        [4, 3, 2, 1],
      );

      // edit in place with the keyboard: Enter on the focused note opens its form, the numbers move and resize it
      await page.keyboard.press('Enter');
      await page.getByLabel('Width').fill('200');
      await page.getByLabel('Note text').fill('resized');
      await page.getByLabel('Note text').press('Tab');
      await page.getByRole('button', { name: 'Save the note' }).click();
      await page.locator('.note', { hasText: 'resized' }).waitFor({ state: 'attached' });
      t.like((await notesOf(app, post))[0], { width: 200, body: 'resized' });

      const here = await placeOf(page, '.note');
      t.true(Math.abs(here.w - 0.5) < 0.01, `half the picture wide (${here.w})`);
      t.true(here.stageInImage);
      await page.setViewportSize(other);
      const there = await placeOf(page, '.note');
      for (const k of ['x', 'y', 'w', 'h'] as const)
        t.true(Math.abs(here[k] - there[k]) < 0.01, `${k} kept at ${other.width} px`);
      await page.setViewportSize(size);

      await page.locator('.note').first().click();
      await page.getByRole('button', { name: 'Delete the note' }).click();
      await page.locator('.note').first().waitFor({ state: 'detached' });
      t.deepEqual(await notesOf(app, post), []);
      t.deepEqual(session.takeErrors(), []);
    },
  );
