/**
 * `POST /image/search` with `orderBy: "relevance"` (docs/decisions.md §7): a `textMatch` condition scores
 * its matches and the results come back best first (`order: "asc"` reverses), while `total` stays
 * the exact number of matches.
 *
 * Every ranking below is built so that it is the opposite of the upload order: the best match is
 * always uploaded first, so an engine that ignored the score (falling back to the post number or the
 * upload date, newest first) would return these lists reversed and fail.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { postJson } from '../helpers/search-fixture.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let user: TestUser;
/** post number by the post's key below */
const seqOf = new Map<string, number>();
let imageSeed = 61_000;

/** Uploaded in this order, so the post numbers (and upload dates) increase down the list. */
const POSTS: [key: string, text: string, tags: string[]][] = [
  // Term frequency: same length (3 words), more occurrences of the query word ranks higher.
  ['kestrel3', 'kestrel kestrel kestrel', []],
  ['kestrel2', 'kestrel kestrel hovering', []],
  ['kestrel1', 'kestrel hovering above', []],
  // Field length: one occurrence each, the shorter text ranks higher.
  ['heron1', 'heron', ['bird']],
  ['heron3', 'heron wading slowly', []],
  ['heron8', 'a heron wading slowly through the grey shallows', ['bird']],
  ['heron16', 'at dawn a heron stood wading slowly through the cold grey shallows of the wide and quiet estuary', []],
  // Rarity (IDF): both posts contain both words, equally long; the one repeating the rare word
  // ("tern") outranks the one repeating the common word ("harbour", in many posts below).
  ['rareTwice', 'tern tern harbour', []],
  ['commonTwice', 'harbour harbour tern', []],
  ['harbourA', 'harbour at night', []],
  ['harbourB', 'harbour lights', []],
  ['harbourC', 'old harbour wall', []],
  ['harbourD', 'harbour cranes', []],
  ['harbourE', 'fishing harbour', []],
  ['harbourF', 'harbour in the fog', []],
  // Contains only one of two query words: not a match at all (every analysed word must match).
  ['ternOnly', 'arctic tern', []],
];

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  user = await createUser(app);
  for (const [key, text, tags] of POSTS) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(imageSeed++), metadata: { text, tags } }),
    });
    if (res.status !== 201) throw new Error(`upload ${key}: ${res.status} ${await res.text()}`);
    const post = await res.json();
    seqOf.set(key, app.services.postRepository.getById(post.id)!.seq);
  }
});
test.after.always(() => app?.close());

const keyOf = (seq: number) => [...seqOf].find(([, s]) => s === seq)?.[0] ?? `#${seq}`;

async function search(conditions: { type: string; value: string }[], orderBy: unknown, order: unknown, query = '') {
  const res = await postJson(app, `/image/search${query}`, { conditions, orderBy, order });
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return {
    total: res.body.data.total as number,
    keys: (res.body.data.images as { id: number }[]).map((im) => keyOf(im.id)),
    body: res.body,
  };
}

const match = (value: string) => [{ type: 'textMatch', value }];

test('the sample is built so that relevance order is the reverse of upload order', (t) => {
  const kestrels = ['kestrel3', 'kestrel2', 'kestrel1'].map((k) => seqOf.get(k)!);
  t.deepEqual(
    [...kestrels].sort((a, b) => a - b),
    kestrels,
    'the best kestrel match has the lowest post number',
  );
});

test('more occurrences of the query word rank first (term frequency)', async (t) => {
  const desc = await search(match('kestrel'), 'relevance', 'desc');
  t.is(desc.total, 3);
  t.deepEqual(desc.keys, ['kestrel3', 'kestrel2', 'kestrel1']);
  t.is(desc.body.error, null);

  // The same matches by upload date come newest first: the ranking above is not that order.
  const byDate = await search(match('kestrel'), 'uploadDate', 'desc');
  t.is(byDate.total, 3);
  t.deepEqual(byDate.keys, ['kestrel1', 'kestrel2', 'kestrel3']);

  const asc = await search(match('kestrel'), 'relevance', 'asc');
  t.deepEqual(asc.keys, ['kestrel1', 'kestrel2', 'kestrel3'], 'asc: least relevant first');
});

test('shorter texts rank first when the word occurs once (field length)', async (t) => {
  const desc = await search(match('Heron'), 'relevance', 'desc');
  t.is(desc.total, 4);
  t.deepEqual(desc.keys, ['heron1', 'heron3', 'heron8', 'heron16']);
  t.deepEqual((await search(match('heron'), 'relevance', 'asc')).keys, ['heron16', 'heron8', 'heron3', 'heron1']);

  // Other conditions filter without changing the ranking of what is left.
  const tagged = await search([...match('heron'), { type: 'tagInclude', value: 'bird' }], 'relevance', 'desc');
  t.is(tagged.total, 2);
  t.deepEqual(tagged.keys, ['heron1', 'heron8']);
  const untagged = await search([...match('heron'), { type: 'tagExclude', value: 'bird' }], 'relevance', 'desc');
  t.is(untagged.total, 2);
  t.deepEqual(untagged.keys, ['heron3', 'heron16']);
});

test('a repeated rare word outweighs a repeated common word (inverse document frequency)', async (t) => {
  const desc = await search(match('harbour tern'), 'relevance', 'desc');
  t.is(desc.total, 2, 'only posts with both words match; "arctic tern" and the harbour-only posts do not');
  t.deepEqual(desc.keys, ['rareTwice', 'commonTwice']);
  // Word order and case in the query do not matter.
  t.deepEqual((await search(match('TERN  Harbour'), 'relevance', 'desc')).keys, ['rareTwice', 'commonTwice']);
  t.deepEqual((await search(match('harbour tern'), 'relevance', 'asc')).keys, ['commonTwice', 'rareTwice']);

  // Two textMatch conditions must both hold, and both score.
  const both = await search([...match('tern'), ...match('harbour')], 'relevance', 'desc');
  t.is(both.total, 2);
  t.deepEqual(both.keys, ['rareTwice', 'commonTwice']);

  const harbour = await search(match('harbour'), 'relevance', 'desc');
  t.is(harbour.total, 8);
  t.is(harbour.keys[0], 'commonTwice', 'the only text with "harbour" twice ranks first');
});

test('paging through a ranked result keeps the ranking; total is the whole match count', async (t) => {
  const all = await search(match('harbour'), 'relevance', 'desc');
  t.is(all.keys.length, 8);
  const pages: string[] = [];
  for (let offset = 0; offset < 8; offset += 3) {
    const page = await search(match('harbour'), 'relevance', 'desc', `?offset=${offset}&limit=3`);
    t.is(page.total, 8, `offset ${offset}`);
    t.true(page.keys.length <= 3);
    pages.push(...page.keys);
  }
  t.deepEqual(pages, all.keys);
  const past = await search(match('harbour'), 'relevance', 'desc', '?offset=8');
  t.is(past.total, 8);
  t.deepEqual(past.keys, []);
});

test('relevance without a textMatch condition, and no match at all', async (t) => {
  // Nothing scores: every match has the same score, so the tie-breaker (post number, in the
  // requested direction) decides.
  const unscored = await search([{ type: 'tagInclude', value: 'bird' }], 'relevance', 'desc');
  t.is(unscored.total, 2);
  t.deepEqual(unscored.keys, ['heron8', 'heron1']);
  const none = await search(match('albatross'), 'relevance', 'desc');
  t.is(none.total, 0);
  t.deepEqual(none.keys, []);
});
