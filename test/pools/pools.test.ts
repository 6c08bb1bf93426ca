/**
 * Pools (docs/decisions.md §19) through HTTP on a real app: create, list, read, rename, describe,
 * reorder, delete, the history of every change; each refusal (no bit 403, a 1,001st post, a post
 * listed twice, an unknown post id, a duplicate name in another case); posts leave their pools when
 * deleted; a merge puts `into` in the merged post's place; `/image/search` condition `pool` and
 * `orderBy: "pool"` (400 without exactly one pool condition).
 */
import test from 'ava';
import { seedPosts } from '../../tools/seed/seed.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { jsonCall } from '../helpers/json-call.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
/** an editor (0x4), a moderator (0x4 | 0x2000), an uploader without the edit bit */
let [editor, mod, uploader]: TestUser[] = [];
/** seeded posts' UUIDs, in number order */
let seeded: string[] = [];
let seed = 38_000;

test.before(async () => {
  app = await startTestApp();
  [editor, mod, uploader] = await Promise.all([0x2 | 0x4, 0x2 | 0x4 | 0x2000, 0x2].map((b) => createUser(app, b)));
  // A thousand posts written in bulk (no files: pools need none); each is indexed when a pool takes it.
  seedPosts(app.services.db, { count: 1000, seed: 38, tags: 4, users: 2, clusters: 0 });
  seeded = app.services.db.prepare('SELECT id FROM posts ORDER BY seq').pluck().all() as string[];
});
test.after.always(async () => {
  await app?.close();
});

const call = (user: TestUser | null, method: string, url: string, body?: unknown) =>
  jsonCall(app, user, method, url, body);

async function upload(): Promise<{ id: string }> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: editor.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata: {}, force: '1' }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return res.json();
}

const search = async (body: unknown, query = '') => {
  const res = await call(null, 'POST', `/image/search${query}`, body);
  return res;
};
const seqOf = (id: string) => app.services.postRepository.getById(id)!.seq;

test('create, read, list by prefix, rename, describe, reorder, delete; every change in the history', async (t) => {
  const posts = seeded.slice(0, 5);
  const created = await call(editor, 'POST', '/api/pool', {
    name: '  Comic A  ',
    description: 'pages',
    postIds: posts,
  });
  t.is(created.status, 201);
  t.like(created.body, { name: 'Comic A', description: 'pages', postCount: 5, postIds: posts });
  const id = created.body.id as number;
  t.deepEqual((await call(null, 'GET', `/api/pool/${id}`)).body, created.body);

  const listed = await call(null, 'GET', '/api/pool?prefix=comic%20');
  t.true(listed.body.data.some((p: { id: number }) => p.id === id));
  t.false('postIds' in listed.body.data[0]);
  t.is((await call(null, 'GET', '/api/pool?prefix=zzz-none')).body.count, 0);

  const reversed = [...posts].reverse();
  const patched = await call(editor, 'PATCH', `/api/pool/${id}`, {
    name: 'Comic A2',
    description: 'all pages',
    postIds: reversed,
  });
  t.is(patched.status, 200);
  t.like(patched.body, { name: 'Comic A2', description: 'all pages', postIds: reversed, postCount: 5 });

  t.is((await call(editor, 'DELETE', `/api/pool/${id}`)).status, 403, 'deleting needs 0x2000');
  t.is((await call(mod, 'DELETE', `/api/pool/${id}`)).status, 204);
  t.is((await call(null, 'GET', `/api/pool/${id}`)).status, 404);

  const history = await call(null, 'GET', `/api/pool/${id}/history`);
  t.is(history.status, 200);
  t.deepEqual(
    history.body.data.map((c: { action: string; user: { id: number } }) => [c.action, c.user.id]),
    [
      ['delete', mod.id],
      ['edit', editor.id],
      ['create', editor.id],
    ],
  );
  t.deepEqual(history.body.data[1].changes, {
    name: { old: 'Comic A', new: 'Comic A2' },
    description: { old: 'pages', new: 'all pages' },
    postIds: { old: posts, new: reversed },
  });
  t.deepEqual(history.body.data[0].changes.postIds, { old: reversed, new: [] });
  t.is((await call(null, 'GET', '/api/pool/999999/history')).status, 404);
});

test('refusals: no bit 403, 401, a 1,001st post, a post twice, an unknown post id, a duplicate name in another case', async (t) => {
  const url = '/api/pool';
  t.is((await call(null, 'POST', url, { name: 'x' })).status, 401);
  t.is((await call(uploader, 'POST', url, { name: 'no bit' })).status, 403);
  t.is((await call(editor, 'POST', url, { name: '' })).status, 400);
  t.is((await call(editor, 'POST', url, { name: 'x'.repeat(101) })).status, 400);
  t.is((await call(editor, 'POST', url, { name: 'x', extra: 1 })).status, 400);

  // A thousand posts is the most a pool holds.
  const full = await call(editor, 'POST', url, { name: 'Full pool', postIds: seeded });
  t.is(full.status, 201);
  t.is(full.body.postCount, 1000);
  const extra = await upload();
  const tooMany = await call(editor, 'POST', url, { name: 'Too many', postIds: [...seeded, extra.id] });
  t.is(tooMany.status, 400);
  t.regex(JSON.stringify(tooMany.body), /at most 1000 posts/);
  const patchTooMany = await call(editor, 'PATCH', `${url}/${full.body.id}`, { postIds: [...seeded, extra.id] });
  t.is(patchTooMany.status, 400);

  const twice = await call(editor, 'POST', url, { name: 'Twice', postIds: [seeded[0], seeded[1], seeded[0]] });
  t.is(twice.status, 400);
  t.deepEqual(twice.body[0].path, ['postIds', 2]);
  const unknown = await call(editor, 'POST', url, {
    name: 'Unknown',
    postIds: [seeded[0], '00000000-0000-7000-8000-000000000000'],
  });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body[0].path, ['postIds', 1]);
  t.regex(unknown.body[0].message, /unknown post/);

  const duplicate = await call(editor, 'POST', url, { name: 'FULL POOL' });
  t.is(duplicate.status, 409);
  const other = await call(editor, 'POST', url, { name: 'Other' });
  t.is((await call(editor, 'PATCH', `${url}/${other.body.id}`, { name: 'full pool' })).status, 409);
  t.is((await call(uploader, 'PATCH', `${url}/${other.body.id}`, { name: 'x' })).status, 403);
  t.is((await call(editor, 'PATCH', `${url}/99999`, { name: 'x' })).status, 404);
  t.is((await call(editor, 'PATCH', `${url}/nope`, { name: 'x' })).status, 404);
  // Nothing refused was stored.
  t.is((await call(null, 'GET', `/api/pool?prefix=too`)).body.count, 0);
  t.is((await call(null, 'GET', `/api/pool/${full.body.id}`)).body.postCount, 1000);
  t.is((await call(null, 'GET', `/api/pool/${other.body.id}`)).body.name, 'Other');
  // A pool renamed to its own name in another case is itself, not a duplicate.
  t.is((await call(editor, 'PATCH', `${url}/${other.body.id}`, { name: 'OTHER' })).status, 200);
});

test('search: the pool condition, orderBy pool (exact order, asc by default), 400 without exactly one pool condition', async (t) => {
  const ids = seeded.slice(10, 16);
  const order = [ids[3], ids[0], ids[5], ids[1], ids[4], ids[2]];
  const pool = (await call(editor, 'POST', '/api/pool', { name: 'Ordered', postIds: order })).body;
  const other = (await call(editor, 'POST', '/api/pool', { name: 'Ordered 2', postIds: [ids[0]] })).body;
  const asked = { conditions: [{ type: 'pool', value: String(pool.id) }], orderBy: 'pool' };
  const found = await search(asked);
  t.is(found.status, 200);
  t.is(found.body.data.total, 6);
  t.deepEqual(
    found.body.data.images.map((i: { id: number }) => i.id),
    order.map(seqOf),
  );
  const desc = await search({ ...asked, order: 'desc' });
  t.deepEqual(
    desc.body.data.images.map((i: { id: number }) => i.id),
    order.map(seqOf).reverse(),
  );
  // Page by page: the second page of two.
  const second = await search(asked, '?offset=2&limit=2');
  t.deepEqual(
    second.body.data.images.map((i: { id: number }) => i.id),
    order.slice(2, 4).map(seqOf),
  );

  for (const bad of [
    { orderBy: 'pool' },
    { orderBy: 'pool', conditions: [{ type: 'tagInclude', value: 'x' }] },
    {
      orderBy: 'pool',
      conditions: [
        { type: 'pool', value: String(pool.id) },
        { type: 'pool', value: String(other.id) },
      ],
    },
    { conditions: [{ type: 'pool', value: 'abc' }] },
  ]) {
    const res = await search(bad);
    t.is(res.status, 400, JSON.stringify(bad));
    t.is(typeof res.body.error, 'string');
  }
  // Two pool conditions without orderBy pool: the posts in both.
  const both = await search({
    conditions: [
      { type: 'pool', value: String(pool.id) },
      { type: 'pool', value: String(other.id) },
    ],
  });
  t.deepEqual(
    both.body.data.images.map((i: { id: number }) => i.id),
    [seqOf(ids[0])],
  );
  t.is((await search({ conditions: [{ type: 'pool', value: '999999' }] })).body.data.total, 0);
});

test('a deleted post leaves its pools (a history entry); a merge puts into in the merged post’s place', async (t) => {
  const [a, b, c, d] = await Promise.all([upload(), upload(), upload(), upload()]);
  const pool = (await call(editor, 'POST', '/api/pool', { name: 'Merge and delete', postIds: [a.id, b.id, c.id] }))
    .body;
  t.is((await call(mod, 'DELETE', `/api/post/${b.id}`)).status, 204);
  t.deepEqual((await call(null, 'GET', `/api/pool/${pool.id}`)).body.postIds, [a.id, c.id]);
  const afterDelete = (await call(null, 'GET', `/api/pool/${pool.id}/history`)).body.data[0];
  t.like(afterDelete, { action: 'post-deleted', user: { id: mod.id } });
  t.deepEqual(afterDelete.changes.postIds, { old: [a.id, b.id, c.id], new: [a.id, c.id] });

  // d, in no pool, is merged into... no: a (first) is merged into d, which takes a's place.
  t.is((await call(mod, 'POST', `/api/post/${a.id}/merge`, { into: d.id })).status, 200);
  t.deepEqual((await call(null, 'GET', `/api/pool/${pool.id}`)).body.postIds, [d.id, c.id]);
  t.is((await call(null, 'GET', `/api/pool/${pool.id}/history`)).body.data[0].action, 'post-merged');
  // Into already in the pool: it leaves its own place for the merged post's.
  t.is((await call(editor, 'PATCH', `/api/pool/${pool.id}`, { postIds: [c.id, d.id] })).status, 200);
  t.is((await call(mod, 'POST', `/api/post/${d.id}/merge`, { into: c.id })).status, 200);
  t.deepEqual((await call(null, 'GET', `/api/pool/${pool.id}`)).body.postIds, [c.id]);
  // The search document follows: orderBy pool gives the pool's order.
  const found = await search({ conditions: [{ type: 'pool', value: String(pool.id) }], orderBy: 'pool' });
  t.deepEqual(
    found.body.data.images.map((i: { id: number }) => i.id),
    [seqOf(c.id)],
  );
});

test('a post page’s pools: position, previous and next', async (t) => {
  // Fresh posts: the seeded ones are in the test of the 1,000-post pool too.
  const ids = (await Promise.all([upload(), upload(), upload()])).map((p) => p.id);
  const pool = (await call(editor, 'POST', '/api/pool', { name: 'Neighbours', postIds: ids })).body;
  const middle = await call(null, 'GET', `/api/post/${ids[1]}/pools`);
  t.is(middle.status, 200);
  t.is(middle.body.data.length, 1);
  t.like(middle.body.data[0], {
    pool: { id: pool.id, name: 'Neighbours' },
    position: 1,
    previous: ids[0],
    next: ids[2],
  });
  const first = (await call(null, 'GET', `/api/post/${ids[0]}/pools`)).body.data[0];
  t.like(first, { previous: null, next: ids[1] });
  t.deepEqual((await call(null, 'GET', `/api/post/${(await upload()).id}/pools`)).body, { data: [] });
  t.is((await call(null, 'GET', '/api/post/00000000-0000-7000-8000-000000000000/pools')).status, 404);
});
