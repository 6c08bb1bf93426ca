import test from 'ava';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { Random } from '../../tools/seed/random.ts';
import { refFacets, type RefFacet } from '../helpers/facet-reference.ts';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { refImageSearch } from '../helpers/search-reference.ts';
import { plantedRow, plantPosts } from '../helpers/planted-posts.ts';

/**
 * Facets on /image/search (docs/decisions.md §11): shapes, limits, and the paths the differential test does not reach.
 */
let fx: SeededApp;
let posts: PostRecord[];
test.before(async () => {
  fx = await startSeededApp({ count: 300, seed: 31, users: 8, tags: 40 });
  // Owner-less posts, with tags of their own, so leaving them out of `uploader` is visible.
  const rnd = new Random(5);
  await plantPosts(
    fx.app.services,
    Array.from({ length: 30 }, (_, i) =>
      plantedRow(rnd, Date.parse('2025-03-01T00:00:00Z') + i * 1000, {
        text: 'legacy',
        rating: 'violent',
        tags: ['legacy', '😀', 'ｚ', `Ünï-${i % 3}`, `ünï-${i % 2}`],
      }),
    ),
  );
  posts = fx.posts();
});
test.after.always(async () => fx?.app.close());

const images = (body: unknown, query = '') => postJson(fx.app, `/image/search${query}`, body);
const ALL: RefFacet[] = ['tags', 'rating', 'uploader'];

test.serial('the posts index has one primary shard, which is what makes terms aggregations exact', async (t) => {
  const { es, postsIndex } = fx.app.services;
  const settings = await es.indices.getSettings({ index: postsIndex.alias, name: 'index.number_of_shards' });
  const shards = Object.values(settings).map((s) => Number(s.settings?.index?.number_of_shards));
  t.deepEqual(shards, [1]);
});

test.serial('facets count the whole result, not the page; only the requested keys; none when not asked', async (t) => {
  const plain = await images({ conditions: [] }, '?limit=2');
  t.false('facets' in plain.body.data);
  const none = await images({ conditions: [], facets: [] });
  t.deepEqual(none.body.data.facets, {});
  const res = await images({ conditions: [], facets: ALL }, '?limit=2');
  t.is(res.status, 200);
  t.is(res.body.data.images.length, 2);
  t.deepEqual(res.body.data.facets, refFacets(posts, [], ALL));
  const ratingCounts = res.body.data.facets.rating;
  t.is(ratingCounts.none + ratingCounts.moderate + ratingCounts.violent, posts.length);
  t.is(
    res.body.data.facets.uploader.reduce((n: number, u: { count: number }) => n + u.count, 0),
    posts.filter((p) => p.uploaderId !== null).length,
  );
  const onlyRating = await images({ conditions: [{ type: 'ratingEq', value: 'violent' }], facets: ['rating'] });
  t.deepEqual(Object.keys(onlyRating.body.data.facets), ['rating']);
  t.like(onlyRating.body.data.facets.rating, { none: 0, moderate: 0 });
});

test.serial(
  'tags named by tagInclude are left out; ties by code point order; owner-less posts are not uploaders',
  async (t) => {
    const conditions = [{ type: 'tagInclude', value: ' legacy ' }];
    const res = await images({ conditions, facets: ALL });
    t.is(res.body.data.total, 30);
    // U+FF5A before U+1F600 in code point order (JavaScript's UTF-16 order would put the emoji first).
    t.deepEqual(res.body.data.facets.tags, [
      { name: 'ｚ', count: 30 },
      { name: '😀', count: 30 },
      { name: 'ünï-0', count: 15 },
      { name: 'ünï-1', count: 15 },
      { name: 'Ünï-0', count: 10 },
      { name: 'Ünï-1', count: 10 },
      { name: 'Ünï-2', count: 10 },
    ]);
    t.deepEqual(res.body.data.facets.uploader, []);
    t.deepEqual(res.body.data.facets.rating, { none: 0, moderate: 0, violent: 30 });
  },
);

test.serial('facets past the result window (point-in-time paging) are the same as on the first page', async (t) => {
  const { es, postsIndex } = fx.app.services;
  const body = { conditions: [{ type: 'ratingEq', value: 'none' }], facets: ALL };
  const first = await images(body);
  await es.indices.putSettings({ index: postsIndex.alias, settings: { 'index.max_result_window': 20 } });
  try {
    const deep = await images(body, '?offset=40&limit=5');
    t.is(deep.status, 200);
    t.is(deep.body.data.images.length, 5);
    t.deepEqual(deep.body.data.facets, first.body.data.facets);
    const past = await images(body, '?offset=100000');
    t.deepEqual(past.body.data.images, []);
    t.deepEqual(past.body.data.facets, first.body.data.facets);
    t.deepEqual(first.body.data.facets, refFacets(refImageSearch(posts, body), [], ALL));
  } finally {
    await es.indices.putSettings({ index: postsIndex.alias, settings: { 'index.max_result_window': null } });
  }
});

test.serial('bad facets are 400 with { error }', async (t) => {
  for (const facets of [['colour'], ['tags', 'tags'], 'tags', [1], ['tags', 'rating', 'uploader', 'tags'], null]) {
    const res = await images({ conditions: [], facets });
    t.is(res.status, 400, JSON.stringify(facets));
    t.is(typeof res.body.error, 'string');
    t.regex(res.body.error, /facets/);
  }
});
