/**
 * The conversation in a real Chromium (docs/decisions.md §18), one browser for the file: a person signs
 * in, comments, edits the comment, votes up then down; blacklists a tag and sees the grid hide its post
 * and say so, with a switch to show it; a visitor keeps a blacklist in the browser; a moderator deletes
 * the comment. Hostile comment bodies stay text on the post page and the recent-comments page, at phone
 * and desktop widths.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
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
  screenshots,
  shows,
  type BrowserSession,
} from './browser.ts';

interface Context {
  app: TestApp;
  owner: TestUser;
  session: BrowserSession;
  posts: { spiders: { id: string; seq: number }; kittens: { id: string; seq: number } };
  dialogs: string[];
}
const test = anyTest as TestFn<Context>;
const PASSWORD = 'correct horse battery';

test.before(async (t) => {
  const app = await startTestApp();
  const owner = await createUser(app, 0x2 | 0x4000, 'talk_owner');
  await createUser(app, 0x4000, 'talk_alice');
  await createUser(app, 0x2000, 'talk_mod');
  const upload = async (seed: number, tags: string[]) => {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: owner.headers,
      body: uploadForm({ image: await randomImage(seed, 200, 150), metadata: { text: tags.join(' '), tags } }),
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    return { id, seq: app.services.postRepository.getById(id)!.seq };
  };
  const posts = { spiders: await upload(3701, ['spiders', 'garden']), kittens: await upload(3702, ['kittens']) };
  const session = await openBrowser(app.url);
  const dialogs: string[] = [];
  // A script that ran from a comment would most likely open one: none may.
  session.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  t.context = { app, owner, session, posts, dialogs };
});
browserHooks(test);

function noErrors(t: ExecutionContext<Context>): void {
  t.deepEqual(t.context.session.takeErrors(), [], 'console errors');
  t.deepEqual(t.context.dialogs, [], 'no dialog opened');
}

const logIn = (page: Page, name: string) => logInByForm(page, name, PASSWORD);

async function logOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await ready(page);
}

test.serial('sign in, comment, edit the comment, vote up then down', async (t) => {
  const { page } = t.context.session;
  const { spiders, kittens } = t.context.posts;
  await logIn(page, 'talk_alice');
  await page.goto(`/post/${spiders.id}`);
  await ready(page);
  await page.getByLabel('Your comment').fill(`Lovely web!\nLike post #${kittens.seq}, see https://example.org/webs.`);
  await page.getByRole('button', { name: 'Post comment' }).click();
  const item = page.locator('li.comment').filter({ hasText: 'Lovely web!' });
  await item.waitFor();
  t.is(await page.locator('#comments-h').textContent(), '1 comment');
  // post #N and the address are links; the line break is kept (pre-wrap); the full stop is not in the link
  t.is(await item.locator(`a[href="/post/${kittens.seq}"]`).textContent(), `post #${kittens.seq}`);
  const web = item.locator('a[href="https://example.org/webs"]');
  t.is(await web.getAttribute('rel'), 'nofollow ugc noopener');
  t.is(await item.locator('.comment-body').evaluate((el) => getComputedStyle(el).whiteSpace), 'pre-wrap');
  t.is(
    await item.locator('.comment-body').textContent(),
    `Lovely web!\nLike post #${kittens.seq}, see https://example.org/webs.`,
  );

  await item.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Change your comment').fill('Lovely web, edited');
  await page.getByRole('button', { name: 'Save comment' }).click();
  const edited = page.locator('li.comment').filter({ hasText: 'Lovely web, edited' });
  await edited.getByText('edited', { exact: false }).first().waitFor();
  t.true(await shows(edited.locator('.comment-meta').getByText('· edited')));

  // Votes: up, then down (which replaces it); the keyboard presses them too
  const up = page.locator('#vote-up');
  const down = page.locator('#vote-down');
  await up.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#vote-up')?.getAttribute('aria-pressed') === 'true');
  t.is(await page.locator('#score').textContent(), 'Score 1');
  await down.click();
  await page.waitForFunction(() => document.querySelector('#vote-down')?.getAttribute('aria-pressed') === 'true');
  t.is(await up.getAttribute('aria-pressed'), 'false');
  t.is(await page.locator('#score').textContent(), 'Score -1');
  const post = (await (await t.context.app.request(`/api/post/${spiders.id}`)).json()) as Record<string, number>;
  t.like(post, { score: -1, upvotes: 0, downvotes: 1, comments: 1 });
  await screenshots(page, 'post-comments');
  await page.goto('/comments');
  await ready(page);
  await page.locator('li.comment').first().waitFor();
  await screenshots(page, 'recent-comments');
  noErrors(t);
});

test.serial('blacklist a tag: the grids hide its post, say how many, and show it on request', async (t) => {
  const { page } = t.context.session;
  const { spiders, kittens } = t.context.posts;
  await page.goto('/account');
  await ready(page);
  await page.getByLabel('Hide posts tagged').fill('spiders -kittens\n\n  ');
  await page.getByRole('button', { name: 'Save blacklist' }).click();
  await page.getByText('Saved: 1 rule.').waitFor();
  const prefs = (await (
    await t.context.app.request('/api/account/preferences', {
      headers: { 'X-Access-Key': t.context.app.services.accounts.users.getByName('talk_alice')!.accessKey },
    })
  ).json()) as { blacklist: string[] };
  t.deepEqual(prefs.blacklist, ['spiders -kittens']);

  await page.goto('/');
  await ready(page);
  const spiderLink = page.locator(`ul.grid a[href="/post/${spiders.id}"]`);
  t.is(await spiderLink.count(), 0);
  t.is(await page.locator(`ul.grid a[href="/post/${kittens.id}"]`).count(), 1);
  t.regex((await page.locator('.blacklist-note').textContent())!, /1 post on this page hidden by your blacklist/);
  const show = page.getByRole('button', { name: 'Show them' });
  await show.click();
  t.is(await spiderLink.count(), 1);
  t.is(await page.locator('#show-blacklisted').getAttribute('aria-pressed'), 'true');
  await screenshots(page, 'home-blacklist');
  await page.getByRole('button', { name: 'Hide them again' }).click();
  t.is(await spiderLink.count(), 0);

  await page.goto(`/search?q=${encodeURIComponent('garden')}`);
  await ready(page);
  t.is(await spiderLink.count(), 0);
  t.regex((await page.locator('.blacklist-note').textContent())!, /1 post on this page hidden/);
  noErrors(t);
});

test.serial('a visitor keeps a blacklist in the browser', async (t) => {
  const { page } = t.context.session;
  const { spiders, kittens } = t.context.posts;
  await logOut(page);
  t.is(await page.locator(`ul.grid a[href="/post/${spiders.id}"]`).count(), 1, "the account's list is not a visitor's");
  await page.goto('/account');
  await ready(page);
  await page.getByLabel('Hide posts tagged').fill('KITTENS');
  await page.getByRole('button', { name: 'Save blacklist' }).click();
  await page.getByText('Saved: 1 rule.').waitFor();
  t.is(await page.evaluate(() => localStorage.getItem('imgpost.blacklist')), '["KITTENS"]');
  await page.goto('/');
  await ready(page);
  t.is(await page.locator(`ul.grid a[href="/post/${kittens.id}"]`).count(), 0, 'tags compare without case');
  t.is(await page.locator(`ul.grid a[href="/post/${spiders.id}"]`).count(), 1);
  await page.evaluate(() => localStorage.removeItem('imgpost.blacklist'));
  noErrors(t);
});

test.serial('a moderator deletes a comment', async (t) => {
  const { page } = t.context.session;
  const { spiders } = t.context.posts;
  await logIn(page, 'talk_mod');
  await page.goto(`/post/${spiders.id}`);
  await ready(page);
  const item = page.locator('li.comment').filter({ hasText: 'Lovely web, edited' });
  await item.waitFor();
  t.is(await item.getByRole('button', { name: 'Edit' }).count(), 0, 'a moderator does not edit');
  await item.getByRole('button', { name: 'Delete' }).click();
  await item.waitFor({ state: 'detached' });
  t.is(await page.locator('#comments-h').textContent(), '0 comments');
  const list = (await (await t.context.app.request(`/api/post/${spiders.id}/comment`)).json()) as { count: number };
  t.is(list.count, 0);
  t.true(await shows(page.getByText('Your account may not comment.')));
  await logOut(page);
  noErrors(t);
});

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<svg/onload=alert(2)>',
  'javascript:alert(3) and <a href="javascript:alert(4)">click</a> and [x](javascript:alert(5))',
  `${'A'.repeat(10_000)}`,
];

/** In the page: every comment body is its text, with no element but the links §18 allows. */
async function bodiesStayText(page: Page): Promise<{ texts: string[]; strays: string[] }> {
  return page.evaluate(() => {
    const bodies = [...document.querySelectorAll('.comment-body')];
    const strays: string[] = [];
    for (const el of document.querySelectorAll('.comment-body *')) {
      const href = el.getAttribute('href') ?? '';
      if (el.tagName !== 'A' || !/^(https?:\/\/|\/post\/\d+$)/.test(href)) strays.push(el.outerHTML.slice(0, 80));
      for (const a of el.getAttributeNames()) if (a.startsWith('on')) strays.push(`${el.tagName} ${a}`);
    }
    if (document.querySelector('main img[src="x"], main svg')) strays.push('an image or svg in main');
    return { texts: bodies.map((b) => b.textContent ?? ''), strays };
  });
}

test.serial('hostile comment bodies stay text on the post page and the recent-comments page', async (t) => {
  const { app, owner, session, posts } = t.context;
  const { page } = session;
  for (const body of HOSTILE) {
    const res = await app.request(`/api/post/${posts.kittens.id}/comment`, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ body }),
    });
    t.is(res.status, 201);
    t.is(((await res.json()) as { body: string }).body, body, 'the API answers the text as sent');
  }
  for (const url of [`/post/${posts.kittens.id}`, '/comments']) {
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(url);
      await ready(page);
      await page.waitForFunction((n) => document.querySelectorAll('.comment-body').length >= n, HOSTILE.length);
      const { texts, strays } = await bodiesStayText(page);
      t.deepEqual(strays, [], `${url} at ${size.width} px`);
      for (const body of HOSTILE) t.true(texts.includes(body), `${url}: ${body.slice(0, 30)} shown as text`);
      // the 10,000-character line wraps: nothing makes the page scroll sideways
      t.true(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        `${url} at ${size.width} px fits`,
      );
    }
  }
  await page.setViewportSize(DESKTOP);
  noErrors(t);
});
