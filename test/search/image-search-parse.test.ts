import test from 'ava';
import { fastParseImageSearch } from '../../src/search/image-search/fast-parse.ts';
import { parseImageSearch } from '../../src/search/image-search/schemas.ts';

// The zod-free reading of /image/search requests (issue 28) must give what the schema gives, or
// step aside: generated bodies and queries, valid and not, each read both ways.

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const TYPES = [
  'tagInclude',
  'tagExclude',
  'tagAny',
  'ratingEq',
  'textContains',
  'uploadedBy',
  'textMatch',
  'favoritedBy',
  'scoreGte',
  'scoreLte',
  'commentedBy',
  'query',
  'query',
  'nope',
  7,
];
const VALUES = [
  'cat',
  '  cat ',
  '',
  '   ',
  'Moderate',
  'VIOLET',
  'violent',
  'none',
  'bad',
  '42',
  '0',
  '007',
  '9'.repeat(17),
  '-3',
  ' +12 ',
  '999999999',
  '1234567890',
  '1.5',
  '--1',
  'x'.repeat(1025),
  'Ünïcode',
  3,
  null,
  // docs/decisions.md §20: both spellings of a query, good and bad
  'cat -dog rating:g',
  '+cat "a phrase" big words sort:old',
  'sort:random',
  'rating:x',
  'nope:1',
];
const QUERY = [
  undefined,
  '0',
  '24',
  '5',
  '-1',
  '-0',
  '1.5',
  'abc',
  '0010',
  '2147483647',
  '2147483648',
  '99999999999',
  ['1', '2'],
];

function condition(rnd: () => number): unknown {
  const r = rnd();
  if (r < 0.05) return null;
  if (r < 0.08) return ['tagInclude', 'cat'];
  const c: Record<string, unknown> = { type: pick(rnd, TYPES), value: pick(rnd, VALUES) };
  if (rnd() < 0.1) c.extra = 1;
  if (rnd() < 0.4) c.spelling = pick(rnd, ['danbooru', 'gallery', 'gallery', 'klingon', 3]);
  if (rnd() < 0.05) delete c.value;
  return c;
}

function body(rnd: () => number): unknown {
  const r = rnd();
  if (r < 0.03) return undefined;
  if (r < 0.05) return null;
  if (r < 0.07) return [];
  const b: Record<string, unknown> = {};
  if (rnd() < 0.9)
    b.conditions =
      rnd() < 0.03 ? 'x' : Array.from({ length: rnd() < 0.02 ? 51 : Math.floor(rnd() * 4) }, () => condition(rnd));
  if (rnd() < 0.8)
    b.orderBy = pick(rnd, ['id', 'uploadDate', 'relevance', 'favorites', 'score', 'comments', 'other', 3, null]);
  if (rnd() < 0.8) b.order = pick(rnd, ['asc', 'desc', 'ASC', 1]);
  if (rnd() < 0.5)
    b.facets = pick(rnd, [
      [],
      ['tags'],
      ['tags', 'rating', 'uploader'],
      ['rating', 'rating'],
      ['colour'],
      'tags',
      null,
      ['tags', 'rating', 'uploader', 'tags'],
    ]);
  return b;
}

test('the fast reading equals the schema whenever it answers, and answers the common requests', (t) => {
  const rnd = random(28);
  let fast = 0;
  for (let i = 0; i < 5000; i++) {
    const input = body(rnd);
    const query: Record<string, unknown> = Object.create(null);
    const offset = pick(rnd, QUERY);
    const limit = pick(rnd, QUERY);
    if (offset !== undefined) query.offset = offset;
    if (limit !== undefined) query.limit = limit;
    const got = fastParseImageSearch(input, query);
    if (got === undefined) continue;
    fast++;
    t.deepEqual(got, parseImageSearch(input, query), JSON.stringify({ input, query }));
  }
  t.true(fast > 150, `the fast reading answered ${fast} of 5000`);
  const common = {
    conditions: [
      { type: 'tagInclude', value: 'cat' },
      { type: 'ratingEq', value: 'moderate' },
    ],
    orderBy: 'uploadDate',
    order: 'desc',
    facets: ['tags', 'rating', 'uploader'],
  };
  const query = Object.assign(Object.create(null), { offset: '0', limit: '24' });
  t.deepEqual(fastParseImageSearch(common, query), parseImageSearch(common, query));
  // The gallery's request: the box as it is, ordered by its sort: (docs/decisions.md §20).
  const gallery = {
    conditions: [{ type: 'query', value: '+cat big words sort:old', spelling: 'gallery' }],
    facets: ['tags', 'rating', 'uploader'],
  };
  const read = fastParseImageSearch(gallery, query);
  t.deepEqual(read, parseImageSearch(gallery, query));
  t.like(read?.request, { orderBy: 'uploadDate', order: 'asc' });
});
