import test from 'ava';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { findWithin } from '../../src/search/similar/find-similar.ts';
import { Random } from '../../tools/seed/random.ts';
import { hammingDistance } from '../../src/hashing/hamming.ts';
import { pool, postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { refImageSearch, refPostSearch, type RefSelector } from '../helpers/search-reference.ts';
import { plantedRow, plantPosts } from '../helpers/planted-posts.ts';

/**
 * Paging past index.max_result_window. Elasticsearch refuses from + size beyond it (10,000 by
 * default); here it is lowered to 50 on the test index, so a small corpus reaches the same wall.
 */
const WINDOW = 50;
const SEEDED = 300;
const CANDIDATES = 120;
const POSTS = SEEDED + CANDIDATES;
const BASE = '1011001110001111000011110000111100001111000011110000111100001010';

let fx: SeededApp;
let posts: PostRecord[];
test.before(async () => {
  fx = await startSeededApp({ count: SEEDED, seed: 5, clusters: 10 });
  const { es, postsIndex } = fx.app.services;
  // Many posts sharing the first 16 bits of BASE: segment candidates for it well past the window.
  const rnd = new Random(8);
  await plantPosts(
    fx.app.services,
    Array.from({ length: CANDIDATES }, (_, i) => {
      const hash = i < 5 ? rnd.flipBits(BASE, i * 3) : BASE.slice(0, 16) + rnd.bits64().slice(16);
      return plantedRow(rnd, Date.parse('2025-02-01T00:00:00Z') + i, { rating: 'moderate', hash });
    }),
  );
  posts = fx.posts();
  await es.indices.putSettings({ index: postsIndex.alias, settings: { 'index.max_result_window': WINDOW } });
});
test.after.always(async () => fx?.app.close());

test('the lowered window is really in force', async (t) => {
  const { es, postsIndex } = fx.app.services;
  await t.throwsAsync(es.search({ index: postsIndex.alias, from: WINDOW, size: 1 }), {
    message: /result window is too large/i,
  });
});

test('/api/post/search pages to the very end past the window, equal to the reference', async (t) => {
  const bodies: {
    filter?: RefSelector[];
    order?: { key: 'createdAt' | 'uploaderId' | 'id'; direction?: 'asc' | 'desc' }[];
  }[] = [
    {},
    { order: [{ key: 'createdAt', direction: 'desc' }] },
    { order: [{ key: 'uploaderId', direction: 'desc' }, { key: 'createdAt' }] },
    { filter: [{ type: 'rating', value: 'none' }], order: [{ key: 'uploaderId' }] },
    { filter: [{ type: 'text', op: 'not_contains', value: 'cat' }], order: [{ key: 'id', direction: 'desc' }] },
  ];
  const requests: { body: (typeof bodies)[number]; offset: number; limit: number }[] = [];
  for (const body of bodies) {
    // Walk the whole result in pages that straddle and pass the window, and a few single jumps.
    for (let offset = 0; offset < POSTS + 40; offset += 37) requests.push({ body, offset, limit: 37 });
    requests.push(
      { body, offset: 0, limit: 1000 },
      { body, offset: POSTS - 3, limit: 10 },
      { body, offset: 5000, limit: 10 },
      { body, offset: 300, limit: 0 },
    );
  }
  const results = await pool(
    4,
    requests.map((r) => () => postJson(fx.app, `/api/post/search?offset=${r.offset}&limit=${r.limit}`, r.body)),
  );
  for (const [i, r] of requests.entries()) {
    const want = refPostSearch(posts, r.body);
    const where = JSON.stringify(r);
    t.is(results[i].status, 200, `${where} ${JSON.stringify(results[i].body)}`);
    t.is(results[i].body.count, want.length, where);
    t.deepEqual(
      results[i].body.data.map((p: { id: string }) => p.id),
      want.slice(r.offset, r.offset + r.limit).map((p) => p.id),
      where,
    );
  }
});

test('/image/search offsets past the window, equal to the reference', async (t) => {
  for (const body of [
    { conditions: [] },
    { conditions: [{ type: 'ratingEq', value: 'none' }], orderBy: 'id', order: 'asc' },
  ]) {
    const want = refImageSearch(posts, body);
    for (const offset of [0, 45, 49, 50, 51, 200, want.length - 5, want.length, 10_000]) {
      const res = await postJson(fx.app, `/image/search?offset=${offset}&limit=24`, body);
      t.is(res.status, 200);
      t.is(res.body.data.total, want.length);
      t.deepEqual(
        res.body.data.images.map((im: { id: number }) => im.id),
        want.slice(offset, offset + 24).map((p) => p.seq),
        `offset ${offset}`,
      );
    }
  }
});

test('findWithin fetches every candidate even when a page would pass the window', async (t) => {
  for (const maxDiff of [3, 8, 11]) {
    const found = await findWithin(fx.app.services.postsIndex, BASE, maxDiff);
    const want = posts
      .filter((p) => hammingDistance(BASE, p.hash) <= maxDiff)
      .map((p) => p.id)
      .sort();
    t.deepEqual(found.map((m) => m.id).sort(), want, `maxDiff ${maxDiff}`);
    t.true(want.length >= 2);
  }
});
