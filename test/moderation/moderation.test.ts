/**
 * Deletion requests and merging duplicates (docs/decisions.md §15), through HTTP on a real app: each
 * refusal (401, 403, 404, 409, 400), the recorded decisions, the events a merge commits, and two
 * merges of the same pair at once.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { jsonCall } from '../helpers/json-call.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
/** a moderator (0x2000), an editor, an uploader */
let [mod, alice, bob]: TestUser[] = [];
let seed = 24_000;

test.before(async () => {
  app = await startTestApp();
  [mod, alice, bob] = await Promise.all([0x2 | 0x4 | 0x2000, 0x2 | 0x4, 0x2].map((bits) => createUser(app, bits)));
});
test.after.always(async () => {
  await app?.close();
});

const call = (user: TestUser | null, method: string, url: string, body?: unknown) =>
  jsonCall(app, user, method, url, body);

async function upload(tags: string[] = []): Promise<{ id: string }> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: alice.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata: { tags }, force: '1' }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return res.json();
}

const events = (postId: string) =>
  app.services.db.prepare('SELECT event FROM outbox WHERE post_id = ? ORDER BY id').pluck().all(postId) as string[];

test('filing a request: reason required and bounded, one pending per account and post, 401 and 404', async (t) => {
  const post = await upload();
  const url = `/api/post/${post.id}/deletion-request`;
  t.is((await call(null, 'POST', url, { reason: 'spam' })).status, 401);
  t.is((await call(bob, 'POST', url, {})).status, 400);
  t.is((await call(bob, 'POST', url, { reason: '   ' })).status, 400);
  t.is((await call(bob, 'POST', url, { reason: 'x'.repeat(2001) })).status, 400);
  t.is((await call(bob, 'POST', url, { reason: 'spam', extra: 1 })).status, 400);
  t.is(
    (await call(bob, 'POST', '/api/post/00000000-0000-7000-8000-000000000000/deletion-request', { reason: 'spam' }))
      .status,
    404,
  );

  const filed = await call(bob, 'POST', url, { reason: '  a copy of #12  ' });
  t.is(filed.status, 201);
  t.like(filed.body, {
    postId: post.id,
    reason: 'a copy of #12',
    status: 'pending',
    requester: { id: bob.id, name: bob.name },
    decidedBy: null,
    decidedAt: null,
  });
  t.is(filed.body.post.id, post.id);
  t.is((await call(bob, 'POST', url, { reason: 'again' })).status, 409);
  // Another account may still ask, and the same account again once its request is closed.
  t.is((await call(alice, 'POST', url, { reason: 'me too' })).status, 201);
  t.is((await call(bob, 'POST', `/api/deletion-request/${filed.body.id}/revoke`)).status, 200);
  t.is((await call(bob, 'POST', url, { reason: 'again' })).status, 201);
});

test('listing: moderators see all, others their own; status filter; 401 and 400', async (t) => {
  const post = await upload();
  const mine = (await call(bob, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'bob' })).body;
  const hers = (await call(alice, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'alice' })).body;
  t.is((await call(null, 'GET', '/api/deletion-request')).status, 401);
  t.is((await call(bob, 'GET', '/api/deletion-request?status=nope')).status, 400);
  const bobs = (await call(bob, 'GET', '/api/deletion-request?limit=1000')).body;
  t.true(bobs.data.every((r: { requester: { id: number } }) => r.requester.id === bob.id));
  t.true(bobs.data.some((r: { id: number }) => r.id === mine.id));
  const all = (await call(mod, 'GET', '/api/deletion-request?status=pending&limit=1000')).body;
  const ids = all.data.map((r: { id: number }) => r.id);
  t.true(ids.includes(mine.id) && ids.includes(hers.id));
  t.true(all.data.every((r: { status: string }) => r.status === 'pending'));
  t.is(all.count, all.data.length);
});

test('approve deletes the post (delete event), records who decided; others close as moot; refusals', async (t) => {
  const post = await upload();
  const req = (await call(bob, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'dupe' })).body;
  const other = (await call(alice, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'dupe too' })).body;
  t.is((await call(null, 'POST', `/api/deletion-request/${req.id}/approve`)).status, 401);
  t.is((await call(bob, 'POST', `/api/deletion-request/${req.id}/approve`)).status, 403);
  t.is((await call(mod, 'POST', '/api/deletion-request/999999/approve')).status, 404);
  t.is((await call(mod, 'POST', '/api/deletion-request/abc/approve')).status, 404);

  const approved = await call(mod, 'POST', `/api/deletion-request/${req.id}/approve`);
  t.is(approved.status, 200);
  t.like(approved.body, {
    status: 'approved',
    reason: 'dupe',
    requester: { id: bob.id },
    decidedBy: { id: mod.id, name: mod.name },
    post: null,
  });
  t.truthy(approved.body.decidedAt);
  t.is((await call(null, 'GET', `/api/post/${post.id}`)).status, 404);
  t.deepEqual(events(post.id), ['create', 'delete']);
  const closed = (await call(alice, 'GET', '/api/deletion-request')).body.data.find(
    (r: { id: number }) => r.id === other.id,
  );
  t.like(closed, { status: 'moot', decidedBy: { id: mod.id } });
  t.is((await call(mod, 'POST', `/api/deletion-request/${req.id}/approve`)).status, 409);
  t.is((await call(mod, 'POST', `/api/deletion-request/${req.id}/dismiss`)).status, 409);
});

test('a request whose post is already gone closes as moot, never a 500', async (t) => {
  const post = await upload();
  const req = (await call(bob, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'gone soon' })).body;
  t.is((await call(mod, 'DELETE', `/api/post/${post.id}`)).status, 204);
  const res = await call(mod, 'POST', `/api/deletion-request/${req.id}/approve`);
  t.is(res.status, 200);
  t.like(res.body, { status: 'moot', decidedBy: { id: mod.id } });
  t.deepEqual(events(post.id), ['create', 'delete']);
});

test('dismiss (0x2000) and revoke (its requester only)', async (t) => {
  const post = await upload();
  const a = (await call(bob, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'a' })).body;
  t.is((await call(bob, 'POST', `/api/deletion-request/${a.id}/dismiss`)).status, 403);
  const dismissed = await call(mod, 'POST', `/api/deletion-request/${a.id}/dismiss`);
  t.like(dismissed.body, { status: 'dismissed', decidedBy: { id: mod.id } });
  t.is((await call(null, 'GET', `/api/post/${post.id}`)).status, 200);

  const b = (await call(bob, 'POST', `/api/post/${post.id}/deletion-request`, { reason: 'b' })).body;
  t.is((await call(null, 'POST', `/api/deletion-request/${b.id}/revoke`)).status, 401);
  t.is((await call(mod, 'POST', `/api/deletion-request/${b.id}/revoke`)).status, 403);
  t.is((await call(bob, 'POST', '/api/deletion-request/999999/revoke')).status, 404);
  const revoked = await call(bob, 'POST', `/api/deletion-request/${b.id}/revoke`);
  t.like(revoked.body, { status: 'revoked', decidedBy: { id: bob.id, name: bob.name } });
  t.is((await call(bob, 'POST', `/api/deletion-request/${b.id}/revoke`)).status, 409);
});

test('merge: into gains the union of tags (a version, an update event), the merged post is deleted (a delete event)', async (t) => {
  const from = await upload(['cat', 'kitten']);
  const into = await upload(['cat', 'sofa']);
  const pending = (await call(bob, 'POST', `/api/post/${from.id}/deletion-request`, { reason: 'duplicate' })).body;
  const before = (await call(null, 'GET', `/api/post/${into.id}/versions`)).body.count;
  const res = await call(mod, 'POST', `/api/post/${from.id}/merge`, { into: into.id });
  t.is(res.status, 200);
  t.deepEqual(res.body.tags.map((x: { name: string }) => x.name).sort(), ['cat', 'kitten', 'sofa']);
  t.is((await call(null, 'GET', `/api/post/${from.id}`)).status, 404);
  t.is((await call(null, 'GET', `/api/post/${into.id}/versions`)).body.count, before + 1);
  t.deepEqual(events(into.id), ['create', 'update']);
  t.deepEqual(events(from.id), ['create', 'delete']);
  const closed = (await call(bob, 'GET', '/api/deletion-request')).body.data.find(
    (r: { id: number }) => r.id === pending.id,
  );
  t.is(closed.status, 'moot');
  // The index follows both changes.
  const search = await call(null, 'POST', '/api/post/search', {
    filter: [{ type: 'tag', op: 'include', value: 'kitten' }],
  });
  t.deepEqual(
    search.body.data.map((p: { id: string }) => p.id),
    [into.id],
  );
});

test('merge refusals: 401, 403, 404 for either post, 400 into itself or without into', async (t) => {
  const a = await upload();
  const b = await upload();
  const missing = '00000000-0000-7000-8000-000000000000';
  t.is((await call(null, 'POST', `/api/post/${a.id}/merge`, { into: b.id })).status, 401);
  t.is((await call(alice, 'POST', `/api/post/${a.id}/merge`, { into: b.id })).status, 403);
  t.is((await call(mod, 'POST', `/api/post/${missing}/merge`, { into: b.id })).status, 404);
  t.is((await call(mod, 'POST', `/api/post/${a.id}/merge`, { into: missing })).status, 404);
  t.is((await call(mod, 'POST', `/api/post/${a.id}/merge`, { into: a.id })).status, 400);
  t.is((await call(mod, 'POST', `/api/post/${a.id}/merge`, {})).status, 400);
  t.deepEqual(events(a.id), ['create']);
  t.deepEqual(events(b.id), ['create']);
});

test('two merges of the same pair at once: exactly one succeeds', async (t) => {
  const a = await upload(['left']);
  const b = await upload(['right']);
  const results = await Promise.all([
    call(mod, 'POST', `/api/post/${a.id}/merge`, { into: b.id }),
    call(mod, 'POST', `/api/post/${a.id}/merge`, { into: b.id }),
    call(mod, 'POST', `/api/post/${b.id}/merge`, { into: a.id }),
  ]);
  t.is(results.filter((r) => r.status === 200).length, 1, JSON.stringify(results.map((r) => r.status)));
  t.true(results.every((r) => r.status === 200 || r.status === 404));
  const survivors = [a, b].filter((p) => events(p.id).at(-1) !== 'delete');
  t.is(survivors.length, 1);
  t.deepEqual(events(survivors[0].id), ['create', 'update']);
});
