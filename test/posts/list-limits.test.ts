/** GET /api/post/ over more posts than one page can hold (docs/decisions.md §4: default 24, limit lowered to 1000). */
import test from 'ava';
import { startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';

const POSTS = 1_030;
let fx: SeededApp;
test.before(async () => {
  fx = await startSeededApp({ count: POSTS, seed: 5 });
});
test.after.always(async () => fx?.app.close());

const list = async (query = '') => {
  const res = await fx.app.request(`/api/post/${query}`);
  return {
    status: res.status,
    body: (await res.json()) as { count: number; data: { id: string; createdAt: string }[] },
  };
};

test('default page is 24 posts, newest first, with the exact count', async (t) => {
  const { status, body } = await list();
  t.is(status, 200);
  t.is(body.count, POSTS);
  t.is(body.data.length, 24);
  const expected = fx
    .posts()
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? -1 : 1));
  t.deepEqual(
    body.data.map((p) => p.id),
    expected.slice(0, 24).map((p) => p.id),
  );
});

test('a limit above 1000 is lowered to 1000; paging reaches the last post', async (t) => {
  const big = await list('?limit=5000');
  t.is(big.status, 200);
  t.is(big.body.data.length, 1000);
  t.is(big.body.count, POSTS);
  const rest = await list('?offset=1000&limit=5000');
  t.is(rest.body.data.length, POSTS - 1000);
  const all = new Set([...big.body.data, ...rest.body.data].map((p) => p.id));
  t.is(all.size, POSTS, 'the two pages cover every post once');
  t.is((await list(`?offset=${POSTS}`)).body.data.length, 0);
  for (const bad of ['?limit=-1', '?offset=-1', '?limit=1.5', '?limit=abc']) t.is((await list(bad)).status, 400, bad);
});
