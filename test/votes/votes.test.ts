/**
 * docs/decisions.md §18 through the API, votes and what follows from the counts: one vote per account,
 * the score on the Post and in the index, scoreGte/scoreLte and orderBy score/comments, merging
 * duplicates; blacklists in the preferences; the comment bit's migration.
 */
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import type { TestUser } from '../helpers/users.ts';
import { quickUsers } from '../helpers/quick-users.ts';
import { calls, COMMENT, startConversationApp } from '../helpers/conversation-app.ts';

let app: TestApp;
let owner: TestUser;
let posts: { id: string; seq: number }[];
test.before(async () => {
  ({ app, owner, posts } = await startConversationApp(3800));
});
test.after.always(() => app?.close());
const { api, json, comment, getPost, search, indexed, noEditOf } = calls(() => app);

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
  const [talker] = quickUsers(app, 1, COMMENT);
  for (const p of [posts[1], posts[1], posts[5]]) t.is((await comment(p.id, talker, 'a word')).status, 201);
  const byComments = await seqs({ orderBy: 'comments', conditions: [talk] });
  t.deepEqual(byComments.slice(0, 2), [posts[1].seq, posts[5].seq]);
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
