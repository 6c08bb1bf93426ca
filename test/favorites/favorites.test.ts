import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { jsonInit, quickUsers } from '../helpers/quick-users.ts';

// docs/decisions.md §14: favorites, their count on every Post and in the index, quick search.
let app: TestApp;
let owner: TestUser;
const posts: { id: string; seq: number }[] = [];
test.before(async () => {
  app = await startTestApp();
  owner = await createUser(app, 6);
  for (let i = 0; i < 4; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: owner.headers,
      body: uploadForm({ image: await randomImage(700 + i), metadata: { text: `kitten number ${i}`, tags: ['fav'] } }),
    });
    const { id } = (await res.json()) as { id: string };
    posts.push({ id, seq: app.services.postRepository.getById(id)!.seq });
  }
});
test.after.always(() => app?.close());

const api = (path: string, method: string, headers: Record<string, string> = {}, body?: unknown) =>
  app.request(path, jsonInit(method, headers, body));
const search = async (body: unknown) =>
  (
    (await (await api('/image/search', 'POST', {}, body)).json()) as {
      data: { total: number; images: { id: number }[] };
    }
  ).data;
const indexed = async (id: string) =>
  (await app.services.es.get({ index: app.services.postsIndex.alias, id }))._source as {
    favorites: number;
    favorited_by: number[];
  };

test('favorite: 401 without a credential, 404 for a missing or malformed post', async (t) => {
  t.is((await api(`/api/post/${posts[0].id}/favorite`, 'PUT')).status, 401);
  t.is((await api(`/api/post/${posts[0].id}/favorite`, 'DELETE')).status, 401);
  t.is((await api('/api/account/favorites', 'GET')).status, 401);
  t.is((await api('/api/post/01900000-0000-7000-8000-000000000000/favorite', 'PUT', owner.headers)).status, 404);
  t.is((await api('/api/post/nope/favorite', 'DELETE', owner.headers)).status, 404);
  t.is((await api('/image/quick-search', 'POST', {}, { q: 'x' })).status, 401);
});

test.serial(
  'favorite and unfavorite: 204 and idempotent; the count on the Post and in the index; no version, no webhook',
  async (t) => {
    const [fan] = quickUsers(app, 1);
    const post = posts[1];
    for (let i = 0; i < 2; i++) t.is((await api(`/api/post/${post.id}/favorite`, 'PUT', fan.headers)).status, 204);
    t.like(await (await api(`/api/post/${post.id}`, 'GET')).json(), { favorites: 1 });
    t.like(await indexed(post.id), { favorites: 1, favorited_by: [fan.id] });
    const versions = (await (await api(`/api/post/${post.id}/versions`, 'GET')).json()) as { count: number };
    t.is(versions.count, 1, 'a favorite is no post version');
    const events = app.services.db.prepare('SELECT DISTINCT event FROM outbox WHERE post_id = ?').pluck().all(post.id);
    t.deepEqual(events.sort(), ['create', 'reindex'], 'reindex rows only: they queue no webhook');
    for (let i = 0; i < 2; i++) t.is((await api(`/api/post/${post.id}/favorite`, 'DELETE', fan.headers)).status, 204);
    t.like(await (await api(`/api/post/${post.id}`, 'GET')).json(), { favorites: 0 });
    t.like(await indexed(post.id), { favorites: 0, favorited_by: [] });
  },
);

test.serial(
  'a storm of 50 clients favoriting one post ends with the exact count in SQLite and the index',
  async (t) => {
    const fans = quickUsers(app, 50);
    const post = posts[2];
    const statuses = await Promise.all(
      fans.map((f) => api(`/api/post/${post.id}/favorite`, 'PUT', f.headers).then((r) => r.status)),
    );
    t.deepEqual([...new Set(statuses)], [204]);
    t.is(app.services.people.favorites.countOfPost(post.seq), 50);
    t.is(app.services.db.prepare('SELECT count(*) FROM favorites WHERE post_seq = ?').pluck().get(post.seq), 50);
    // Each response waits for its index write (at most a few seconds): poll in case one gave up waiting.
    const deadline = Date.now() + 15_000;
    let doc = await indexed(post.id);
    while (doc.favorites !== 50 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      doc = await indexed(post.id);
    }
    t.is(doc.favorites, 50);
    t.deepEqual(
      [...doc.favorited_by].sort((a, b) => a - b),
      fans.map((f) => f.id).sort((a, b) => a - b),
    );
  },
);

test.serial("the caller's favorites newest first; /image/search favoritedBy and orderBy favorites", async (t) => {
  const [me] = quickUsers(app, 1);
  await api(`/api/post/${posts[0].id}/favorite`, 'PUT', me.headers);
  await api(`/api/post/${posts[3].id}/favorite`, 'PUT', me.headers);
  const list = (await (await api('/api/account/favorites?limit=10', 'GET', me.headers)).json()) as {
    count: number;
    data: { id: string; favorites: number }[];
  };
  t.is(list.count, 2);
  t.deepEqual(
    list.data.map((p) => p.id),
    [posts[3].id, posts[0].id],
  );
  t.is((await api('/api/account/favorites?offset=-1', 'GET', me.headers)).status, 400);

  const mine = await search({ conditions: [{ type: 'favoritedBy', value: me.name.toUpperCase() }] });
  t.deepEqual(mine.images.map((i) => i.id).sort(), [posts[0].seq, posts[3].seq].sort());
  t.is((await search({ conditions: [{ type: 'favoritedBy', value: 'no_such_user_here' }] })).total, 0);
  const ranked = await search({ conditions: [{ type: 'tagInclude', value: 'fav' }], orderBy: 'favorites' });
  t.is(ranked.images[0].id, posts[2].seq, "the storm's post has the most");
});

test.serial(
  "shortcuts: unique per account (409); quick search puts the caller's shortcut first, then textMatch, without repeats",
  async (t) => {
    const [me, other] = quickUsers(app, 2);
    t.is((await api(`/api/post/${posts[3].id}/favorite`, 'PUT', me.headers, { shortcut: 'Kit' })).status, 204);
    t.is((await api(`/api/post/${posts[0].id}/favorite`, 'PUT', me.headers, { shortcut: 'kit' })).status, 409);
    t.is(
      (await api(`/api/post/${posts[0].id}/favorite`, 'PUT', other.headers, { shortcut: 'kit' })).status,
      204,
      'another account may use it',
    );
    t.is((await api(`/api/post/${posts[0].id}/favorite`, 'PUT', me.headers, { shortcut: 'x'.repeat(33) })).status, 400);
    const res = await api('/image/quick-search', 'POST', me.headers, { q: 'KI' });
    t.is(res.status, 200);
    const { data } = (await res.json()) as { data: { images: { id: number }[] } };
    t.is(data.images[0].id, posts[3].seq);
    const ids = data.images.map((i) => i.id);
    t.is(new Set(ids).size, ids.length, 'no repeats');
    t.is((await api('/image/quick-search', 'POST', me.headers, { q: '' })).status, 400);
  },
);

test.serial(
  'merging a duplicate moves its favorites to the post it is merged into (count in SQLite and the index)',
  async (t) => {
    const [moderator] = quickUsers(app, 1, 0x2000 | 0x4);
    const [a, b] = [posts[0], posts[1]];
    const moved = app.services.people.favorites.countOfPost(a.seq)!;
    const kept = app.services.people.favorites.countOfPost(b.seq)!;
    t.true(moved > 0);
    const res = await api(`/api/post/${a.id}/merge`, 'POST', moderator.headers, { into: b.id });
    t.is(res.status, 200, await res.clone().text());
    t.like(await res.json(), { id: b.id, favorites: moved + kept });
    t.like(await indexed(b.id), { favorites: moved + kept });
  },
);
