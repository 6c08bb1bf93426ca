/**
 * docs/decisions.md §18 through the API, one app: comments (each refusal), votes, the counts on every
 * Post and in the index (searchable with the write's answer, no version, no webhook), the search
 * conditions and orders, merging, deleting posts and accounts, blacklists, the comment bit's migration.
 */
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { jsonInit, quickUsers } from '../people/helpers.ts';
import { eventually } from '../webhooks/receiver.ts';

const COMMENT = 0x4000;
let app: TestApp;
let owner: TestUser;
const posts: { id: string; seq: number }[] = [];
test.before(async () => {
  app = await startTestApp();
  owner = await createUser(app, 0x2 | COMMENT);
  for (let i = 0; i < 6; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: owner.headers,
      body: uploadForm({ image: await randomImage(3700 + i), metadata: { text: `talk ${i}`, tags: ['talk'] } }),
    });
    const { id } = (await res.json()) as { id: string };
    posts.push({ id, seq: app.services.postRepository.getById(id)!.seq });
  }
});
test.after.always(() => app?.close());

const api = (url: string, method: string, headers: Record<string, string> = {}, body?: unknown) =>
  app.request(url, jsonInit(method, headers, body));
const json = async (url: string, method: string, headers: Record<string, string> = {}, body?: unknown) => {
  const res = await api(url, method, headers, body);
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};
const comment = (post: string, who: TestUser, body: unknown) =>
  json(`/api/post/${post}/comment`, 'POST', who.headers, { body });
const getPost = async (id: string) => (await json(`/api/post/${id}`, 'GET')).body;
const search = async (body: unknown) =>
  (await json('/image/search?limit=24', 'POST', {}, body)).body.data as { total: number; images: { id: number }[] };
const indexed = async (id: string) =>
  (await app.services.es.get({ index: app.services.postsIndex.alias, id }))._source as Record<string, unknown>;
const noEditOf = (id: string) => {
  const events = app.services.db.prepare('SELECT DISTINCT event FROM outbox WHERE post_id = ?').pluck().all(id);
  return events.every((e) => e === 'create' || e === 'reindex');
};

test('comment refusals: 401, 403 without 0x4000, 400 empty or over 10,000 characters, 404 unknown post', async (t) => {
  const [mute] = quickUsers(app, 1, 0x2 | 0x4);
  const [talker] = quickUsers(app, 1, COMMENT);
  const post = posts[0].id;
  t.is((await api(`/api/post/${post}/comment`, 'POST', {}, { body: 'hi' })).status, 401);
  t.is((await comment(post, mute, 'hi')).status, 403);
  for (const body of ['', '   \n\t ', 'x'.repeat(10_001), 42, undefined])
    t.is((await comment(post, talker, body)).status, 400, JSON.stringify(body)?.slice(0, 20));
  t.is((await json(`/api/post/${post}/comment`, 'POST', talker.headers, { body: 'x', extra: 1 })).status, 400);
  t.is((await comment('01900000-0000-7000-8000-000000000000', talker, 'hi')).status, 404);
  t.is((await comment('nope', talker, 'hi')).status, 404);
  t.is((await json('/api/post/01900000-0000-7000-8000-000000000000/comment', 'GET')).status, 404);
  t.is((await json('/api/comment?offset=-1', 'GET')).status, 400);
  t.is((await getPost(post)).comments, 0, 'nothing stored');
  // 10,000 characters (code points, emoji included) after trimming is the most
  const longest = `${'🙂'.repeat(5000)}${'y'.repeat(5000)}`;
  const ok = await comment(post, talker, `  ${longest}\n`);
  t.is(ok.status, 201);
  t.is(ok.body.body, longest);
  t.is((await api(`/api/comment/${ok.body.id}`, 'DELETE', talker.headers)).status, 204);
});

test.serial('comments: post, list oldest first, edit by the author, delete by the author or 0x2000', async (t) => {
  const [alice, bob] = quickUsers(app, 2, COMMENT);
  const [moderator] = quickUsers(app, 1, 0x2000);
  const post = posts[1];
  const before = await getPost(post.id);
  const first = await comment(post.id, alice, '  hello\nworld  ');
  t.is(first.status, 201);
  t.like(first.body, {
    postId: post.id,
    author: { id: alice.id, name: alice.name },
    body: 'hello\nworld',
    edited: false,
  });
  t.is(first.body.createdAt, first.body.updatedAt);
  const second = (await comment(post.id, bob, 'see post #1')).body;
  const third = (await comment(String(post.seq), alice, 'by number')).body;

  // counted on the Post and in the index with the write's answer; no version, no webhook, no change time
  const after = await getPost(post.id);
  t.is(after.comments, 3);
  t.is(after.updatedAt, before.updatedAt);
  t.like(await indexed(post.id), { comments: 3, commented_by: [alice.id, bob.id].sort((a, b) => a - b) });
  t.is((await json(`/api/post/${post.id}/versions`, 'GET')).body.count, 1);
  t.true(noEditOf(post.id));
  for (const name of [bob.name, bob.name.toUpperCase()])
    t.deepEqual(
      (await search({ conditions: [{ type: 'commentedBy', value: name }] })).images.map((i) => i.id),
      [post.seq],
    );
  t.is((await search({ conditions: [{ type: 'commentedBy', value: 'nobody_at_all' }] })).total, 0);

  const list = (await json(`/api/post/${post.id}/comment`, 'GET')).body;
  t.is(list.count, 3);
  t.deepEqual(
    list.data.map((c: { id: number }) => c.id),
    [first.body.id, second.id, third.id],
  );
  t.deepEqual((await json(`/api/post/${post.id}/comment?offset=1&limit=1`, 'GET')).body.data, [second]);

  // edit: the author only
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', bob.headers, { body: 'mine now' })).status, 403);
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', moderator.headers, { body: 'x' })).status, 403);
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', {}, { body: 'x' })).status, 401);
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', alice.headers, { body: ' ' })).status, 400);
  t.is((await json('/api/comment/999999', 'PATCH', alice.headers, { body: 'x' })).status, 404);
  t.is((await json('/api/comment/abc', 'PATCH', alice.headers, { body: 'x' })).status, 404);
  const edited = await json(`/api/comment/${first.body.id}`, 'PATCH', alice.headers, { body: ' changed ' });
  t.is(edited.status, 200);
  t.like(edited.body, { id: first.body.id, body: 'changed', edited: true, createdAt: first.body.createdAt });
  // an author whose right to comment was taken cannot rewrite the comment, but may delete it
  const [silenced] = quickUsers(app, 1, COMMENT);
  const said = (await comment(post.id, silenced, 'before')).body;
  app.services.accounts.users.setPermission(silenced.id, 0);
  t.is((await json(`/api/comment/${said.id}`, 'PATCH', silenced.headers, { body: 'after' })).status, 403);
  t.is((await api(`/api/comment/${said.id}`, 'DELETE', silenced.headers)).status, 204);

  // delete: someone else 403; a moderator or the author 204; then 404
  t.is((await api(`/api/comment/${second.id}`, 'DELETE', alice.headers)).status, 403);
  t.is((await api(`/api/comment/${second.id}`, 'DELETE')).status, 401);
  t.is((await api(`/api/comment/${second.id}`, 'DELETE', moderator.headers)).status, 204);
  t.is((await api(`/api/comment/${third.id}`, 'DELETE', alice.headers)).status, 204);
  t.is((await api(`/api/comment/${third.id}`, 'DELETE', alice.headers)).status, 404);
  t.is((await getPost(post.id)).comments, 1);
  t.like(await indexed(post.id), { comments: 1, commented_by: [alice.id] });
  t.is((await search({ conditions: [{ type: 'commentedBy', value: bob.name }] })).total, 0);
});

test.serial('the newest comments site-wide and by author; an unknown author has none', async (t) => {
  const [carol] = quickUsers(app, 1, COMMENT);
  const a = (await comment(posts[2].id, carol, 'one')).body;
  const b = (await comment(posts[3].id, carol, 'two')).body;
  const newest = (await json('/api/comment?limit=2', 'GET')).body;
  t.deepEqual(newest.data, [b, a]);
  t.true(newest.count >= 2);
  t.deepEqual((await json(`/api/comment?author=${carol.name.toUpperCase()}`, 'GET')).body, { count: 2, data: [b, a] });
  t.deepEqual((await json('/api/comment?author=nobody_at_all', 'GET')).body, { count: 0, data: [] });
  t.deepEqual((await json(`/api/comment?author=${carol.name}&limit=0`, 'GET')).body, { count: 2, data: [] });
});

test.serial('the 11th comment in a minute is 429 with Retry-After; nothing stored', async (t) => {
  const [chatty] = quickUsers(app, 1, COMMENT);
  // eleven sent at once: ten are stored, one is refused
  const sent = await Promise.all(Array.from({ length: 11 }, (_, i) => comment(posts[4].id, chatty, `message ${i}`)));
  t.deepEqual(sent.map((r) => r.status).sort(), [...Array(10).fill(201), 429]);
  t.is((await comment('01900000-0000-7000-8000-000000000000', chatty, 'lost')).status, 404, 'refused before the pace');
  const refused = await comment(posts[4].id, chatty, 'one more');
  t.is(refused.status, 429);
  t.regex(refused.body.error, /10 comments a minute/);
  const wait = Number(refused.headers.get('retry-after'));
  t.true(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  t.is((await json(`/api/comment?author=${chatty.name}&limit=0`, 'GET')).body.count, 10);
  // another account is not slowed by it
  const [other] = quickUsers(app, 1, COMMENT);
  t.is((await comment(posts[4].id, other, 'me too')).status, 201);
});

test.serial('hostile bodies come back as the very text that was sent', async (t) => {
  const [mallory] = quickUsers(app, 1, COMMENT);
  for (const body of [
    '<img src=x onerror=alert(1)>',
    '<svg/onload=alert(1)>',
    'javascript:alert(1) and [x](javascript:alert(1))',
    '"><script>alert(1)</script>',
  ]) {
    const made = await comment(posts[5].id, mallory, body);
    t.is(made.status, 201);
    t.is(made.body.body, body);
  }
});

test.serial('votes: one per account, replaced; score on the Post and in the index; refusals', async (t) => {
  const [v1, v2, v3] = quickUsers(app, 3, 0);
  const post = posts[2];
  const vote = (who: TestUser, value: unknown) => json(`/api/post/${post.id}/vote`, 'PUT', who.headers, { value });
  t.is((await api(`/api/post/${post.id}/vote`, 'PUT', {}, { value: 1 })).status, 401);
  t.is((await api(`/api/post/${post.id}/vote`, 'GET')).status, 401);
  t.is((await api(`/api/post/${post.id}/vote`, 'DELETE')).status, 401);
  for (const value of [2, 0, '1', -2, 1.5, null]) t.is((await vote(v1, value)).status, 400, String(value));
  t.is((await json(`/api/post/${post.id}/vote`, 'PUT', v1.headers, {})).status, 400);
  t.is(
    (await json('/api/post/01900000-0000-7000-8000-000000000000/vote', 'PUT', v1.headers, { value: 1 })).status,
    404,
  );
  t.is((await json('/api/post/01900000-0000-7000-8000-000000000000/vote', 'GET', v1.headers)).status, 404);
  t.deepEqual((await json(`/api/post/${post.id}/vote`, 'GET', v1.headers)).body, { value: 0 });

  t.deepEqual((await vote(v1, 1)).body, { score: 1, upvotes: 1, downvotes: 0, value: 1 });
  t.deepEqual((await vote(v1, 1)).body, { score: 1, upvotes: 1, downvotes: 0, value: 1 }, 'the same vote again');
  t.deepEqual((await vote(v2, 1)).body, { score: 2, upvotes: 2, downvotes: 0, value: 1 });
  t.deepEqual((await vote(v1, -1)).body, { score: 0, upvotes: 1, downvotes: 1, value: -1 }, 'replaced');
  t.deepEqual((await vote(v3, -1)).body, { score: -1, upvotes: 1, downvotes: 2, value: -1 });
  t.deepEqual((await json(`/api/post/${post.id}/vote`, 'GET', v1.headers)).body, { value: -1 });
  t.like(await getPost(post.id), { score: -1, upvotes: 1, downvotes: 2 });
  t.like(await indexed(post.id), { score: -1, upvotes: 1, downvotes: 2 });
  t.true(noEditOf(post.id));
  t.is((await json(`/api/post/${post.id}/versions`, 'GET')).body.count, 1);

  t.is((await api(`/api/post/${post.id}/vote`, 'DELETE', v3.headers)).status, 204);
  t.is((await api(`/api/post/${post.id}/vote`, 'DELETE', v3.headers)).status, 204, 'idempotent');
  t.deepEqual((await json(`/api/post/${post.id}/vote`, 'GET', v3.headers)).body, { value: 0 });
  t.like(await getPost(post.id), { score: 0, upvotes: 1, downvotes: 1 });
  t.like(await indexed(post.id), { score: 0, upvotes: 1, downvotes: 1 });
});

test.serial('scoreGte, scoreLte and orderBy score and comments find the counts at once', async (t) => {
  const voters = quickUsers(app, 3, 0);
  const post = posts[3];
  for (const v of voters) await json(`/api/post/${post.id}/vote`, 'PUT', v.headers, { value: 1 });
  const talk = { type: 'tagInclude', value: 'talk' };
  const seqs = async (body: unknown) => (await search(body)).images.map((i) => i.id);
  t.deepEqual(await seqs({ conditions: [talk, { type: 'scoreGte', value: '3' }] }), [post.seq]);
  t.deepEqual(
    await seqs({ conditions: [talk, { type: 'scoreGte', value: '+3' }, { type: 'scoreLte', value: ' 3 ' }] }),
    [post.seq],
  );
  t.is((await seqs({ conditions: [talk, { type: 'scoreLte', value: '2' }] })).length, posts.length - 1);
  t.is((await seqs({ orderBy: 'score', conditions: [talk] }))[0], post.seq);
  t.is((await seqs({ orderBy: 'score', order: 'asc', conditions: [talk] })).at(-1), post.seq);
  const byComments = await seqs({ orderBy: 'comments', conditions: [talk] });
  const counts = await Promise.all(byComments.map(async (seq) => (await getPost(String(seq))).comments as number));
  t.deepEqual(
    counts,
    [...counts].sort((a, b) => b - a),
    'most commented first',
  );
  for (const value of ['1.5', 'ten', '1e3', '1234567890', ''])
    t.is((await json('/image/search', 'POST', {}, { conditions: [{ type: 'scoreGte', value }] })).status, 400, value);
});

test.serial('a merge moves comments and votes to `into`; one vote per account; counts exact', async (t) => {
  const [moderator] = quickUsers(app, 1, 0x2000);
  const [both, onlyFrom, onlyInto] = quickUsers(app, 3, COMMENT);
  const upload = async (seed: number) => {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: owner.headers,
      body: uploadForm({ image: await randomImage(seed), metadata: { tags: ['merged'] } }),
    });
    return ((await res.json()) as { id: string }).id;
  };
  const [from, into] = [await upload(3790), await upload(3791)];
  const vote = (p: string, who: TestUser, value: number) => json(`/api/post/${p}/vote`, 'PUT', who.headers, { value });
  await vote(from, both, -1);
  await vote(into, both, 1);
  await vote(from, onlyFrom, -1);
  await vote(into, onlyInto, 1);
  const moved = (await comment(from, onlyFrom, 'on the duplicate')).body;
  await comment(into, onlyInto, 'on the original');
  const merged = await json(`/api/post/${from}/merge`, 'POST', moderator.headers, { into });
  t.is(merged.status, 200);
  t.like(await getPost(into), { upvotes: 2, downvotes: 1, score: 1, comments: 2 });
  t.deepEqual((await json(`/api/post/${into}/vote`, 'GET', both.headers)).body, { value: 1 }, "into's vote kept");
  t.deepEqual((await json(`/api/post/${into}/vote`, 'GET', onlyFrom.headers)).body, { value: -1 });
  const list = (await json(`/api/post/${into}/comment`, 'GET')).body;
  t.is(list.count, 2);
  t.true(list.data.some((c: { id: number; postId: string }) => c.id === moved.id && c.postId === into));
  const exact = app.services.db
    .prepare(
      `SELECT p.upvotes = (SELECT count(*) FROM votes v WHERE v.post_seq = p.seq AND v.value = 1)
          AND p.downvotes = (SELECT count(*) FROM votes v WHERE v.post_seq = p.seq AND v.value = -1)
          AND p.comments = (SELECT count(*) FROM comments c WHERE c.post_seq = p.seq) FROM posts p`,
    )
    .pluck()
    .all();
  t.true(
    exact.every((ok) => ok === 1),
    'every count equals its rows',
  );
  t.like(await indexed(into), { upvotes: 2, downvotes: 1, score: 1, comments: 2 });
});

test.serial(
  'deleting a post deletes its comments and votes; deleting an account keeps its comments, authorless',
  async (t) => {
    const [leaver, stayer] = quickUsers(app, 2, COMMENT);
    const post = posts[5];
    const kept = (await comment(post.id, leaver, 'I was here')).body;
    await json(`/api/post/${post.id}/vote`, 'PUT', leaver.headers, { value: 1 });
    await comment(post.id, stayer, 'me too');
    const before = await getPost(post.id);
    app.services.accounts.remove(leaver.name);
    const list = (await json(`/api/post/${post.id}/comment?limit=1000`, 'GET')).body;
    const orphan = list.data.find((c: { id: number }) => c.id === kept.id);
    t.deepEqual(orphan, { ...kept, author: null });
    t.like(await getPost(post.id), { comments: before.comments, upvotes: before.upvotes - 1 });
    // the account's removal answers at its commit; the documents follow with the relay's next pass
    const commenters = await eventually(async () => {
      const d = await indexed(post.id);
      return (d.upvotes as number) === before.upvotes - 1 ? (d.commented_by as number[]) : undefined;
    });
    t.false(commenters!.includes(leaver.id));
    t.true(commenters!.includes(stayer.id));

    const doomed = posts[4];
    const ids = (await json(`/api/post/${doomed.id}/comment?limit=1000`, 'GET')).body.data.map(
      (c: { id: number }) => c.id,
    );
    t.true(ids.length > 0);
    const [deleter] = quickUsers(app, 1, 0x2000);
    t.is((await api(`/api/post/${doomed.id}`, 'DELETE', deleter.headers)).status, 204);
    for (const id of ids) t.is((await api(`/api/comment/${id}`, 'DELETE', deleter.headers)).status, 404);
    t.is(app.services.db.prepare('SELECT count(*) FROM comments WHERE post_seq = ?').pluck().get(doomed.seq), 0);
  },
);

test('blacklists: stored per account, at most 100 lines of 200 characters; a field left out is kept', async (t) => {
  const [reader] = quickUsers(app, 1, 0);
  const prefs = (body?: unknown) =>
    json('/api/account/preferences', body === undefined ? 'GET' : 'PUT', reader.headers, body);
  t.deepEqual((await prefs()).body, { ratings: ['none', 'moderate'], blacklist: [] });
  const set = await prefs({ blacklist: ['  spiders  -cute ', '', 'gore', '   '] });
  t.deepEqual(set.body, { ratings: ['none', 'moderate'], blacklist: ['spiders -cute', 'gore'] });
  t.deepEqual((await prefs({ ratings: ['none'] })).body, { ratings: ['none'], blacklist: ['spiders -cute', 'gore'] });
  t.is((await prefs({ blacklist: Array.from({ length: 101 }, (_, i) => `t${i}`) })).status, 400);
  t.is((await prefs({ blacklist: ['x'.repeat(201)] })).status, 400);
  t.is((await prefs({ blacklist: 'gore' })).status, 400);
  t.is((await prefs({ blacklist: Array.from({ length: 100 }, () => 'x'.repeat(200)) })).status, 200);
  t.is((await api('/api/account/preferences', 'PUT', {}, { blacklist: [] })).status, 401);
});

test('migration 018 gives 0x4000 to every account holding 0x2, and only to those', (t) => {
  const db = new Database(path.join(tempDir(), DATABASE_FILE));
  const all = listMigrations();
  migrate(
    db,
    all.filter((m) => m.version < 18),
  );
  const add = db.prepare(
    "INSERT INTO users (name, password_hash, access_key, access_key_digest, permission, created_at) VALUES (?, 'x', ?, ?, ?, '')",
  );
  for (const [name, permission] of [
    ['uploader', 0x2],
    ['editor', 0x6],
    ['reader', 0x4],
    ['admin', 0x1],
  ] as const)
    add.run(name, name, Buffer.from(name), permission);
  migrate(db, all);
  t.deepEqual(db.prepare('SELECT name, permission FROM users ORDER BY id').all(), [
    { name: 'uploader', permission: 0x4002 },
    { name: 'editor', permission: 0x4006 },
    { name: 'reader', permission: 0x4 },
    { name: 'admin', permission: 0x1 },
  ]);
  db.close();
});
