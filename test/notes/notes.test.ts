/**
 * docs/decisions.md §23 through the API, notes: adding (each refusal: no credential, no 0x4, a box outside
 * the image, an empty or 10,001-character body, an unknown post), listing, moving and resizing with
 * optimistic versions, history, revert, deleting; the post's last note time with no post version; a merge
 * moving them, a post's deletion removing them, an account's removal leaving them by nobody.
 */
import test from 'ava';
import type { TestApp } from '../helpers/app.ts';
import { quickUsers } from '../helpers/quick-users.ts';
import { calls, startConversationApp } from '../helpers/conversation-app.ts';

let app: TestApp;
let posts: { id: string; seq: number }[];
test.before(async () => {
  ({ app, posts } = await startConversationApp(5200));
});
test.after.always(() => app?.close());
const { api, json, getPost, noEditOf } = calls(() => app);

const EDIT = 0x4;
// the test images are 64x48
const box = { x: 10, y: 8, width: 20, height: 10 };
const add = (post: string, who: { headers: Record<string, string> }, body: unknown) =>
  json(`/api/post/${post}/note`, 'POST', who.headers, body);
/** Whether Danbooru's is:noted, /api/post/search's and /image/search's hasNotes find the post (§23). */
const foundAsNoted = async (post: { id: string; seq: number }) => {
  const booru = (await json(`/posts.json?tags=${encodeURIComponent(`is:noted id:${post.seq}`)}`, 'GET')).body;
  const search = await json(
    '/api/post/search',
    'POST',
    {},
    {
      filter: [
        { type: 'hasNotes', value: true },
        { type: 'id', op: 'contains', value: post.id },
      ],
    },
  );
  const images = await json(
    '/image/search',
    'POST',
    {},
    {
      conditions: [
        { type: 'hasNotes', value: 'true' },
        { type: 'query', value: `id:${post.seq}` },
      ],
    },
  );
  return [booru.length, search.body.count, images.body.data.total];
};
const lastNoted = (seq: number) =>
  app.services.db.prepare('SELECT last_noted_at FROM posts WHERE seq = ?').pluck().get(seq) as string | null;

test('refusals: 401, 403 without 0x4, 400 outside the image or a bad body, 404 unknown post or note', async (t) => {
  const [reader] = quickUsers(app, 1, 0x2);
  const [editor] = quickUsers(app, 1, EDIT);
  const post = posts[0].id;
  t.is((await api(`/api/post/${post}/note`, 'POST', {}, { ...box, body: 'hi' })).status, 401);
  t.is((await add(post, reader, { ...box, body: 'hi' })).status, 403);
  const bad = [
    { ...box, x: 50, body: 'past the right edge' },
    { ...box, y: 40, body: 'past the bottom' },
    { ...box, width: 65, x: 0, body: 'wider than the image' },
    { ...box, x: -1, body: 'negative' },
    { ...box, width: 0, body: 'empty box' },
    { ...box, x: 1.5, body: 'fraction' },
    { ...box, body: '' },
    { ...box, body: '  \n ' },
    { ...box, body: 'x'.repeat(10_001) },
    { ...box },
    { ...box, body: 'x', extra: 1 },
  ];
  for (const body of bad) t.is((await add(post, editor, body)).status, 400, JSON.stringify(body).slice(0, 60));
  t.is((await add('01900000-0000-7000-8000-000000000000', editor, { ...box, body: 'hi' })).status, 404);
  t.is((await json('/api/post/nope/note', 'GET')).status, 404);
  t.deepEqual((await json(`/api/post/${post}/note`, 'GET')).body, [], 'nothing stored');
  // the whole image, and 10,000 characters, are the most
  const whole = await add(post, editor, { x: 0, y: 0, width: 64, height: 48, body: 'y'.repeat(10_000) });
  t.is(whole.status, 201);
  const id = whole.body.id;
  t.is((await json(`/api/note/${id}`, 'PATCH', reader.headers, { x: 1 })).status, 403);
  t.is((await json(`/api/note/${id}`, 'PATCH', editor.headers, { x: 1 })).status, 400, 'moved out of the image');
  t.is((await json(`/api/note/${id}`, 'PATCH', editor.headers, { body: '' })).status, 400);
  t.is((await api(`/api/note/${id}`, 'DELETE', reader.headers)).status, 403);
  t.is((await json(`/api/note/${id}/revert`, 'POST', reader.headers, { version: 1 })).status, 403);
  t.is((await json(`/api/note/${id}/revert`, 'POST', {}, { version: 1 })).status, 401);
  t.is((await json(`/api/note/${id}`, 'PATCH', editor.headers, { version: 1, x: 0, width: 65 })).status, 400);
  t.like((await json(`/api/post/${post}/note`, 'GET')).body[0], { x: 0, width: 64, version: 1 }, 'unchanged');
  for (const ref of ['999999', 'x', '0'])
    t.is((await json(`/api/note/${ref}`, 'PATCH', editor.headers, { x: 1 })).status, 404, ref);
  t.is((await json('/api/note/999999/history', 'GET')).status, 404);
  t.is((await api(`/api/note/${id}`, 'DELETE', editor.headers)).status, 204);
  t.is((await api(`/api/note/${id}`, 'DELETE', editor.headers)).status, 404);
});

test.serial('add, list, move and resize with versions, history, revert, delete; no post version', async (t) => {
  const [alice, bob] = quickUsers(app, 2, EDIT);
  const post = posts[1];
  const before = await getPost(post.id);
  t.is(lastNoted(post.seq), null);
  const made = await add(post.id, alice, { ...box, body: '  こんにちは\n<b>hi</b>  ' });
  t.is(made.status, 201);
  t.like(made.body, {
    postId: post.id,
    ...box,
    body: 'こんにちは\n<b>hi</b>',
    version: 1,
    author: { name: alice.name },
  });
  t.truthy(lastNoted(post.seq));
  t.deepEqual(await foundAsNoted(post), [1, 1, 1], 'searchable as noted once the response is sent');
  const second = (await add(String(post.seq), bob, { x: 0, y: 0, width: 5, height: 5, body: 'by number' })).body;
  t.deepEqual(
    (await json(`/api/post/${post.id}/note`, 'GET')).body.map((n: { id: number }) => n.id),
    [made.body.id, second.id],
  );

  const id = made.body.id;
  const moved = await json(`/api/note/${id}`, 'PATCH', bob.headers, { x: 30, width: 34, version: 1 });
  t.is(moved.status, 200);
  t.like(moved.body, { x: 30, y: 8, width: 34, height: 10, version: 2, body: 'こんにちは\n<b>hi</b>' });
  t.is(moved.body.author.name, alice.name, 'the author stays');
  const stale = await json(`/api/note/${id}`, 'PATCH', alice.headers, { body: 'mine', version: 1 });
  t.is(stale.status, 409);
  t.regex(stale.body.error, /current version is 2/);
  t.is((await json(`/api/note/${id}`, 'PATCH', alice.headers, { body: 'translated' })).body.version, 3);

  const history = (await json(`/api/note/${id}/history`, 'GET')).body;
  t.deepEqual(
    history.map((v: { version: number; x: number }) => [v.version, v.x]),
    [
      [3, 30],
      [2, 30],
      [1, 10],
    ],
  );
  t.is(history[1].editor.name, bob.name);
  const reverted = await json(`/api/note/${id}/revert`, 'POST', bob.headers, { version: 1 });
  t.like(reverted.body, { ...box, body: 'こんにちは\n<b>hi</b>', version: 4 });
  t.is((await json(`/api/note/${id}/revert`, 'POST', bob.headers, { version: 99 })).status, 404);

  // notes are no post edit: no version, no webhook, the post's change time unchanged
  t.is((await json(`/api/post/${post.id}/versions`, 'GET')).body.count, 1);
  t.true(noEditOf(post.id));
  t.is((await getPost(post.id)).updatedAt, before.updatedAt);

  t.is((await api(`/api/note/${second.id}`, 'DELETE', alice.headers)).status, 204);
  t.is((await api(`/api/note/${id}`, 'DELETE', alice.headers)).status, 204);
  t.deepEqual((await json(`/api/post/${post.id}/note`, 'GET')).body, []);
  t.is(lastNoted(post.seq), null, 'no notes, no last note time');
  t.deepEqual(await foundAsNoted(post), [0, 0, 0], 'no longer noted');
});

test.serial(
  'a merge moves the notes with their boxes; deleting a post removes them; an account leaves them by nobody',
  async (t) => {
    const [editor] = quickUsers(app, 1, EDIT);
    const [leaver] = quickUsers(app, 1, EDIT);
    const [admin] = quickUsers(app, 1, 0x1);
    const [from, into, doomed] = [posts[2], posts[3], posts[4]];
    const kept = (await add(from.id, leaver, { ...box, body: 'moves along' })).body;
    const merged = await json(`/api/post/${from.id}/merge`, 'POST', admin.headers, { into: into.id });
    t.true(merged.status < 300, JSON.stringify(merged.body));
    const moved = (await json(`/api/post/${into.id}/note`, 'GET')).body;
    t.is(moved.length, 1);
    t.like(moved[0], { id: kept.id, postId: into.id, ...box, body: 'moves along' });
    t.truthy(lastNoted(into.seq));

    app.services.accounts.remove(leaver.name);
    t.is((await json(`/api/post/${into.id}/note`, 'GET')).body[0].author, null, 'the note stays, by nobody');
    t.is((await json(`/api/note/${kept.id}/history`, 'GET')).body[0].editor, null);

    const gone = (await add(doomed.id, editor, { ...box, body: 'goes with its post' })).body;
    t.is((await api(`/api/post/${doomed.id}`, 'DELETE', admin.headers)).status, 204);
    t.is((await json(`/api/note/${gone.id}/history`, 'GET')).status, 404);
    t.is(app.services.db.prepare('SELECT count(*) FROM note_versions WHERE note_id = ?').pluck().get(gone.id), 0);
  },
);
