/**
 * docs/decisions.md §23 through the API, wiki pages: writing (each refusal: no credential, no 0x4, a
 * locked page without 0x1000, a stale version, a body over 50,000 characters, an unknown tag), reading,
 * history newest first, revert, lock, search, aliases sharing their target's page, a merged tag keeping
 * its page, and an account's removal leaving its edits by nobody.
 */
import test from 'ava';
import type { TestApp } from '../helpers/app.ts';
import { quickUsers } from '../helpers/quick-users.ts';
import { calls, startConversationApp } from '../helpers/conversation-app.ts';

let app: TestApp;
test.before(async () => {
  ({ app } = await startConversationApp(5100));
});
test.after.always(() => app?.close());
const { json } = calls(() => app);

const EDIT = 0x4;
const GOVERN = 0x1000;
const put = (tag: string, who: { headers: Record<string, string> }, body: unknown) =>
  json(`/api/wiki/${encodeURIComponent(tag)}`, 'PUT', who.headers, body);

test.serial('write, read, optimistic versions, history, revert', async (t) => {
  const [alice, bob] = quickUsers(app, 2, EDIT);
  t.is((await json('/api/wiki/talk', 'GET')).status, 404, 'no page yet');
  const first = await put('talk', alice, { body: 'What is said.\n\nMore.', otherNames: ['会話'] });
  t.is(first.status, 200);
  t.like(first.body, {
    tag: 'talk',
    body: 'What is said.\n\nMore.',
    otherNames: ['会話'],
    locked: false,
    version: 1,
    editor: { id: alice.id, name: alice.name },
  });
  t.deepEqual((await json('/api/wiki/talk', 'GET')).body, first.body);

  // Two editors both read version 1: the first to write wins, the second is told the current version.
  const second = await put('talk', bob, { body: 'Bob says.', version: 1 });
  t.is(second.status, 200);
  t.like(second.body, { version: 2, otherNames: ['会話'], editor: { name: bob.name } });
  const stale = await put('talk', alice, { body: 'Alice overwrites?', version: 1 });
  t.is(stale.status, 409);
  t.regex(stale.body.error, /current version is 2/);
  t.is((await json('/api/wiki/talk', 'GET')).body.body, 'Bob says.', 'nothing changed');
  t.is((await put('talk', alice, { body: 'Alice, without a version.' })).body.version, 3);

  const history = (await json('/api/wiki/talk/history', 'GET')).body;
  t.deepEqual(
    history.map((v: { version: number }) => v.version),
    [3, 2, 1],
  );
  t.is(history[2].body, 'What is said.\n\nMore.');
  t.is(history[1].editor.name, bob.name);

  const reverted = await json('/api/wiki/talk/revert', 'POST', bob.headers, { version: 1 });
  t.is(reverted.status, 200);
  t.like(reverted.body, { version: 4, body: 'What is said.\n\nMore.', otherNames: ['会話'] });
  t.is((await json('/api/wiki/talk/revert', 'POST', bob.headers, { version: 9 })).status, 404);
  t.is((await json('/api/wiki/talk/revert', 'POST', bob.headers, { version: 'one' })).status, 400);
});

test.serial('refusals: 401, 403 without 0x4, 400 over 50,000 characters or off-schema, 404 unknown tag', async (t) => {
  const [reader] = quickUsers(app, 1, 0x2);
  const [editor] = quickUsers(app, 1, EDIT);
  t.is((await json('/api/wiki/talk', 'PUT', {}, { body: 'x' })).status, 401);
  t.is((await put('talk', reader, { body: 'x' })).status, 403);
  t.is((await json('/api/wiki/talk/revert', 'POST', reader.headers, { version: 1 })).status, 403);
  const before = (await json('/api/wiki/talk', 'GET')).body;
  for (const body of [
    { body: 'x'.repeat(50_001) },
    { body: 42 },
    {},
    { body: 'x', extra: 1 },
    { body: 'x', version: 0 },
  ])
    t.is((await put('talk', editor, body)).status, 400, JSON.stringify(body).slice(0, 30));
  t.deepEqual((await json('/api/wiki/talk', 'GET')).body, before, 'nothing stored');
  // 50,000 characters (code points) is the most
  const longest = await put('talk', editor, { body: `${'🙂'.repeat(25_000)}${'y'.repeat(25_000)}` });
  t.is(longest.status, 200);
  t.is((await put('no-such-tag-anywhere', editor, { body: 'x' })).status, 404);
  t.is((await json('/api/wiki/no-such-tag-anywhere/history', 'GET')).status, 404);
  t.is((await json('/api/wiki/no-such-tag-anywhere/lock', 'PUT', editor.headers, { locked: true })).status, 403);
});

test.serial('a locked page is written by 0x1000 only; locking needs 0x1000', async (t) => {
  const [editor] = quickUsers(app, 1, EDIT);
  const [governor] = quickUsers(app, 1, EDIT | GOVERN);
  const [lockOnly] = quickUsers(app, 1, GOVERN);
  await put('talk', editor, { body: 'before the lock' });
  t.is((await json('/api/wiki/talk/lock', 'PUT', editor.headers, { locked: true })).status, 403);
  const locked = await json('/api/wiki/talk/lock', 'PUT', governor.headers, { locked: true });
  t.is(locked.status, 200);
  t.true(locked.body.locked);
  const version = locked.body.version;
  t.is((await put('talk', editor, { body: 'vandal' })).status, 403);
  t.is((await json('/api/wiki/talk/revert', 'POST', editor.headers, { version: 1 })).status, 403);
  t.is((await json('/api/wiki/talk', 'GET')).body.body, 'before the lock');
  t.is((await put('talk', lockOnly, { body: 'x' })).status, 403, '0x1000 alone does not edit');
  const governed = await put('talk', governor, { body: 'governed', version });
  t.like(governed.body, { version: version + 1, locked: true });
  t.is((await json('/api/wiki/no-such-tag-anywhere/lock', 'PUT', governor.headers, { locked: true })).status, 404);
  t.false((await json('/api/wiki/talk/lock', 'PUT', governor.headers, { locked: false })).body.locked);
  t.is((await put('talk', editor, { body: 'open again' })).status, 200);
});

test.serial('aliases share their target’s page; a merged tag keeps its page; search', async (t) => {
  const [editor] = quickUsers(app, 1, EDIT | GOVERN);
  const post = (await json('/api/post/', 'GET')).body.data[0];
  t.is((await json(`/api/post/${post.id}`, 'PATCH', editor.headers, { tags: ['wk-cat', 'wk-kitty'] })).status, 200);
  t.is((await put('wk-kitty', editor, { body: 'A kitty is an idle [[wk-cat]].' })).status, 200);
  // merging wk-kitty into wk-cat (an alias over it) keeps the page, read by either name, edited in place
  t.is((await json('/api/tag/wk-kitty/alias', 'PUT', editor.headers, { target: 'wk-cat' })).status, 200);
  for (const name of ['wk-kitty', 'wk-cat'])
    t.like((await json(`/api/wiki/${name}`, 'GET')).body, { tag: 'wk-kitty', version: 1 }, name);
  t.like((await put('wk-cat', editor, { body: 'A kitty is an idle cat.', version: 1 })).body, {
    tag: 'wk-kitty',
    version: 2,
  });
  // an alias made of a tag with no page reads and writes its target's
  t.is((await json('/api/tag/wk-puss/alias', 'PUT', editor.headers, { target: 'wk-cat' })).status, 200);
  t.like((await json('/api/wiki/wk-puss', 'GET')).body, { tag: 'wk-kitty', version: 2 });
  t.is((await json('/api/wiki/wk-puss/history', 'GET')).body.length, 2);

  const found = (await json('/api/wiki?query=IDLE', 'GET')).body;
  t.deepEqual(
    found.data.map((p: { tag: string }) => p.tag),
    ['wk-kitty'],
  );
  t.is((await json('/api/wiki?query=%25', 'GET')).body.count, 0, 'LIKE wildcards are literal');
  const all = (await json('/api/wiki?limit=1', 'GET')).body;
  t.true(all.count >= 1);
  t.is(all.data.length, 1);
  t.is((await json('/api/wiki?limit=-1', 'GET')).status, 400);
});

test.serial('deleting an account keeps its edits, by nobody', async (t) => {
  const [leaver] = quickUsers(app, 1, EDIT);
  const page = await put('talk', leaver, { body: 'written by one who leaves' });
  t.is(page.body.editor.name, leaver.name);
  app.services.accounts.remove(leaver.name);
  const after = (await json('/api/wiki/talk', 'GET')).body;
  t.like(after, { body: 'written by one who leaves', editor: null });
  t.is((await json('/api/wiki/talk/history', 'GET')).body[0].editor, null);
});

test.serial('the Danbooru API: /wiki_pages.json, /wiki_pages/{title}.json, /notes.json', async (t) => {
  const [editor] = quickUsers(app, 1, EDIT);
  await put('talk', editor, { body: 'Danbooru reads [[talk]].', otherNames: ['おしゃべり'] });
  const [page] = (await json('/wiki_pages.json?search[title]=talk', 'GET')).body;
  t.like(page, { title: 'talk', body: 'Danbooru reads [[talk]].', other_names: ['おしゃべり'], is_deleted: false });
  t.regex(page.updated_at, /\+00:00$/);
  t.deepEqual((await json('/wiki_pages/talk.json', 'GET')).body, page);
  const missing = await json('/wiki_pages/no_such_tag.json', 'GET');
  t.is(missing.status, 404);
  t.is(missing.body.success, false);
  t.deepEqual((await json('/wiki_pages.json?search[title]=no_such_tag', 'GET')).body, []);
  t.true((await json('/wiki_pages.json?limit=1', 'GET')).body.length === 1);
  t.is((await json('/wiki_pages.json?page=b1', 'GET')).status, 400);
  t.is((await json('/notes.json', 'GET')).status, 400);
  t.deepEqual((await json('/notes.json?search[post_id]=999999', 'GET')).body, []);
});
