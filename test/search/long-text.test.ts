import test from 'ava';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { Random } from '../../tools/seed/random.ts';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { refImageSearch, refPostSearch } from '../helpers/search-reference.ts';
import { plantedRow, plantPosts } from '../helpers/planted-posts.ts';

/** Texts up to the 10,000-character limit, and needles long enough to defeat a wildcard automaton. */
let fx: SeededApp;
let posts: PostRecord[];
const rnd = new Random(31);
const randomText = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + rnd.int(0, 25))).join('');
const LONG = randomText(3000);

test.before(async () => {
  fx = await startSeededApp({ count: 60, seed: 9 });
  const texts = [
    LONG,
    `prefix ${LONG.slice(1000, 2500)} suffix`,
    'a'.repeat(600),
    'a'.repeat(400) + 'b' + 'a'.repeat(400),
    'İ'.repeat(10_000), // lower-cases to 20,000 UTF-16 units / 30,000 UTF-8 bytes: the largest text_lc
    '🙂'.repeat(5_000),
    '東京'.repeat(5_000),
  ];
  await plantPosts(
    fx.app.services,
    texts.map((text, i) => plantedRow(rnd, Date.parse('2025-01-01T00:00:00Z') + i, { text })),
  );
  posts = fx.posts();
});
test.after.always(async () => fx?.app.close());

const needles = [
  LONG.slice(1200, 1700), // in two posts
  LONG.slice(0, 3000).toUpperCase(), // the whole of one text, other case
  'A'.repeat(350), // periodic: in two posts
  'a'.repeat(401), // only in the 600
  'a'.repeat(400) + 'b' + 'a'.repeat(10), // only in the a-b-a text
  'i̇'.repeat(300),
  '🙂'.repeat(400),
  '東京'.repeat(300),
  randomText(500), // nowhere
  'x'.repeat(20_000), // longer than any text
  // Up to 256 code points a needle is matched as its trigrams at consecutive positions (span query):
  // periodic needles repeat one trigram, which must still mean consecutive characters.
  'a'.repeat(256), // in three posts (the 600 and both sides of the a-b-a text)
  'A'.repeat(4),
  'a'.repeat(200) + 'b' + 'a', // only in the a-b-a text
  'aba', // three characters: one trigram, only in the a-b-a text
  'abaa',
  'aaba', // across the b
  '🙂'.repeat(4),
  '東京東京東',
  'i̇i̇',
];

test('text contains / not_contains with long needles equals the reference', async (t) => {
  for (const [i, value] of needles.entries()) {
    for (const op of ['contains', 'not_contains'] as const) {
      const body = { filter: [{ type: 'text' as const, op, value }] };
      const res = await postJson(fx.app, '/api/post/search?limit=1000', body);
      const want = refPostSearch(posts, body);
      t.is(res.status, 200, `needle ${i} ${op}: ${JSON.stringify(res.body).slice(0, 200)}`);
      t.is(res.body.count, want.length, `needle ${i} ${op}`);
      t.deepEqual(
        res.body.data.map((p: { id: string }) => p.id),
        want.map((p) => p.id),
        `needle ${i} ${op}`,
      );
    }
  }
  const twice = await postJson(fx.app, '/api/post/search', {
    filter: [{ type: 'text', op: 'contains', value: needles[0] }],
  });
  t.is(twice.body.count, 2);
});

test('/image/search textContains with long needles equals the reference', async (t) => {
  for (const [i, value] of needles.entries()) {
    const body = { conditions: [{ type: 'textContains', value }], orderBy: 'id', order: 'asc' };
    const res = await postJson(fx.app, '/image/search', body);
    const want = refImageSearch(posts, body);
    t.is(res.status, 200, `needle ${i}`);
    t.is(res.body.data.total, want.length, `needle ${i}`);
    t.deepEqual(
      res.body.data.images.map((im: { id: number }) => im.id),
      want.slice(0, 24).map((p) => p.seq),
      `needle ${i}`,
    );
  }
});

test('short needles still match inside the longest texts; over-long ids and textMatch values are handled', async (t) => {
  for (const value of ['i̇i̇', '🙂', '京東', LONG.slice(2990, 3000)]) {
    const body = { filter: [{ type: 'text' as const, op: 'contains' as const, value }] };
    t.is((await postJson(fx.app, '/api/post/search', body)).body.count, refPostSearch(posts, body).length, value);
  }
  t.is(
    (await postJson(fx.app, '/api/post/search', { filter: [{ type: 'id', op: 'contains', value: '0'.repeat(40) }] }))
      .body.count,
    0,
  );
  const long = await postJson(fx.app, '/image/search', {
    conditions: [{ type: 'textMatch', value: 'word '.repeat(300) }],
  });
  t.is(long.status, 400);
  t.is(typeof long.body.error, 'string');
});
