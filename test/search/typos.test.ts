/**
 * `textMatch` typo tolerance and prefix (docs/decisions.md §11), table-driven: which query matches which
 * text, and that exact matches rank above typo matches under `orderBy: "relevance"`.
 */
import test from 'ava';
import { Random } from '../../tools/seed/random.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { postJson } from '../helpers/search-fixture.ts';
import { plantedRow, plantPosts } from '../helpers/planted-posts.ts';

let app: TestApp;
const seqOf = new Map<string, number>();

/** Posted in this order (post numbers increase down the list). */
const TEXTS: [key: string, text: string][] = [
  ['heron', 'a heron wading slowly through the grey shallows of the estuary'],
  ['herons', 'herons'],
  ['tern', 'tern'],
  ['waterfall', 'waterfall'],
  ['mountain', 'mountain'],
  ['kestrel', 'kestrel hovering'],
  ['cat', 'cat'],
  ['greyHeron', 'grey heron at dawn in the reeds by the river'],
  ['greyHerons', 'grey herons'],
  ['grayHeron', 'gray heron'],
];

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  const rnd = new Random(14);
  const posts = await plantPosts(
    app.services,
    TEXTS.map(([, text], i) => plantedRow(rnd, Date.parse('2025-04-01T00:00:00Z') + i * 1000, { text })),
  );
  posts.forEach((p, i) => seqOf.set(TEXTS[i][0], p.seq));
});
test.after.always(() => app?.close());

const keyOf = (seq: number) => [...seqOf].find(([, s]) => s === seq)?.[0] ?? `#${seq}`;

async function matching(value: string, orderBy = 'id', order = 'asc'): Promise<string[]> {
  const res = await postJson(app, '/image/search', { conditions: [{ type: 'textMatch', value }], orderBy, order });
  if (res.status !== 200) throw new Error(`${value}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data.images as { id: number }[]).map((im) => keyOf(im.id));
}

const TABLE: [why: string, query: string, matches: string[]][] = [
  ['exact word', 'mountain', ['mountain']],
  ['5 letters, one substitution', 'herin', ['heron', 'greyHeron', 'grayHeron']],
  ['5 letters, one transposition (counts as one typo)', 'hreon', ['heron', 'greyHeron', 'grayHeron']],
  [
    '5 letters, one insertion reaches "herons" too',
    'heronn',
    ['heron', 'herons', 'greyHeron', 'greyHerons', 'grayHeron'],
  ],
  ['5 letters, two typos: no match', 'hiran', []],
  ['4 letters, one typo: no match', 'tarn', []],
  ['4 letters, one deletion: no match', 'trn', []],
  ['3 letters, one typo: no match', 'cot', []],
  ['8 letters, one typo', 'mountian', ['mountain']],
  ['8 letters, two typos: no match', 'muontian', []],
  ['9 letters, two typos (a substitution and a transposition)', 'wotrefall', ['waterfall']],
  ["the query word's length decides: 8 letters allow one typo even against a 9-letter word", 'watrefal', []],
  ['9 letters, two substitutions', 'wotarfall', ['waterfall']],
  ['9 letters, three typos: no match', 'wotarfal', []],
  ['last word as a prefix', 'kestrel hov', ['kestrel']],
  ['a one-letter prefix', 'kestrel h', ['kestrel']],
  ['a prefix that is not the last word does not count', 'hov kestrel', []],
  ['prefix of a single word', 'water', ['waterfall']],
  ['a typo in the prefix word: fuzzy or prefix, not both at once', 'wuter', []],
  ['every word must match; "heorn" is two edits from "herons"', 'grey heorn', ['heron', 'greyHeron']],
  ['4-letter word exact, so "gray" is not "grey"', 'gray', ['grayHeron']],
  ['case and spacing do not matter', '  MOUNTIAN ', ['mountain']],
];

for (const [why, query, want] of TABLE) {
  test(`textMatch "${query}": ${why}`, async (t) => {
    t.deepEqual((await matching(query)).sort(), [...want].sort());
  });
}

test('exact matches rank above typo and prefix matches, even against shorter and newer texts', async (t) => {
  // "herons" and "grey herons" are shorter than "a heron wading ..." and newer: by BM25 alone or by
  // date they would come first. Among the exact matches BM25 decides (the shortest text first).
  const ranked = await matching('heron', 'relevance', 'desc');
  t.deepEqual(ranked.slice(0, 3), ['grayHeron', 'greyHeron', 'heron']);
  t.deepEqual(ranked.slice(3).sort(), ['greyHerons', 'herons']);
  // Two exact words above one exact and one typo, whatever the lengths.
  t.deepEqual(await matching('grey heron', 'relevance', 'desc'), ['greyHeron', 'heron', 'greyHerons']);
  const asc = await matching('grey heron', 'relevance', 'asc');
  t.deepEqual(asc, ['greyHerons', 'heron', 'greyHeron']);
});
