import { parseFeed } from '@rowanmanning/feed-parser';
import test from 'ava';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';

// The gallery's spelling of a search (docs/decisions.md §12, §20), parsed on the server: the
// `/image/search` condition { type: "query", spelling: "gallery" } answers exactly what the conditions it
// stands for answer, in the order its sort: names; what it does not understand is 400 naming it; the
// Atom feed reads the same spelling.

let fx: SeededApp;
let posts: PostRecord[];
/** the most used tags, most used first */
let tags: string[];
/** a word many posts' text holds, and a two-word phrase of one post */
let word: string;
let phrase: string;
let uploader: string;

test.before(async () => {
  fx = await startSeededApp({ count: 400, seed: 39, users: 6, tags: 40, votes: 900, comments: 500 });
  posts = fx.posts();
  const count = (xs: string[]) => {
    const n = new Map<string, number>();
    for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
    return [...n].sort((a, b) => b[1] - a[1]).map(([x]) => x);
  };
  tags = count(posts.flatMap((p) => p.tags.map((x) => x.name)));
  word = count(posts.flatMap((p) => p.text.toLowerCase().match(/[a-z]{5,}/g) ?? []))[0];
  const words = posts.map((p) => p.text.split(/\s+/)).find((w) => w.length >= 3 && /^[a-z]+$/i.test(w[1]))!;
  phrase = `${words[0]} ${words[1]}`;
  uploader = fx.seed.users[0].name;
});
test.after.always(async () => fx?.app.close());

interface Answer {
  status: number;
  total: number;
  ids: number[];
  facets?: { tags: { name: string }[] };
  error?: string;
}

async function search(body: Record<string, unknown>, offset = 0): Promise<Answer> {
  const res = await postJson(fx.app, `/image/search?offset=${offset}&limit=24`, body);
  if (res.status !== 200) return { status: res.status, total: 0, ids: [], error: res.body.error };
  const { total, images, facets } = res.body.data;
  return { status: 200, total, ids: images.map((i: { id: number }) => i.id), facets };
}
const box = (value: string, extra: Record<string, unknown> = {}) =>
  search({ conditions: [{ type: 'query', value, spelling: 'gallery' }], ...extra });

test('each segment answers what the condition it stands for answers, in the sort it names', async (t) => {
  const [a, b, c, d] = tags;
  const cases: [string, Record<string, unknown>][] = [
    [`${word}`, { conditions: [{ type: 'textMatch', value: word }], orderBy: 'relevance' }],
    [`"${phrase}"`, { conditions: [{ type: 'textContains', value: phrase }] }],
    [
      `+${a} -${b}`,
      {
        conditions: [
          { type: 'tagInclude', value: a },
          { type: 'tagExclude', value: b },
        ],
      },
    ],
    [`~${c} ~${d} +${a}`, { conditions: [cond('tagAny', c), cond('tagAny', d), cond('tagInclude', a)] }],
    ['rating:Moderate', { conditions: [cond('ratingEq', 'moderate')] }],
    [`by:${uploader}`, { conditions: [cond('uploadedBy', uploader)] }],
    [`+${a} sort:old`, { conditions: [cond('tagInclude', a)], orderBy: 'uploadDate', order: 'asc' }],
    [`${word} sort:new`, { conditions: [cond('textMatch', word)], orderBy: 'uploadDate', order: 'desc' }],
    [`+${a} sort:RELEVANCE`, { conditions: [cond('tagInclude', a)], orderBy: 'relevance' }],
    ['sort:score', { orderBy: 'score' }],
    [`~${a} ~${b} sort:comments`, { conditions: [cond('tagAny', a), cond('tagAny', b)], orderBy: 'comments' }],
    [
      `${word} -${b} rating:none "${word.slice(1, 4)}" by:${uploader} other`,
      {
        conditions: [
          cond('tagExclude', b),
          cond('ratingEq', 'none'),
          cond('textContains', word.slice(1, 4)),
          cond('uploadedBy', uploader),
          cond('textMatch', `${word} other`),
        ],
        orderBy: 'relevance',
      },
    ],
  ];
  for (const [q, conditions] of cases) {
    const got = await box(q);
    t.is(got.status, 200, `${q}: ${got.error}`);
    t.deepEqual(got, await search(conditions), q);
  }
  // Not vacuous: the searches above find posts.
  t.true((await box(`+${a} -${b}`)).total > 0);
  t.true((await box(word)).total > 0);
  t.true((await box(`"${phrase}"`)).total > 0);
  // A second page reads on in the same order.
  const secondPage = await search(
    { conditions: [{ type: 'query', value: `+${a} sort:old`, spelling: 'gallery' }] },
    24,
  );
  t.true(secondPage.ids.length > 0);
  t.deepEqual(
    secondPage,
    await search({ conditions: [cond('tagInclude', a)], orderBy: 'uploadDate', order: 'asc' }, 24),
  );
});

const cond = (type: string, value: string) => ({ type, value });

test('an orderBy in the request wins over the sort: of the box; an order sets the direction', async (t) => {
  const [a] = tags;
  t.deepEqual(
    await box(`+${a} sort:score`, { orderBy: 'id', order: 'asc' }),
    await search({ conditions: [cond('tagInclude', a)], orderBy: 'id', order: 'asc' }),
  );
  t.deepEqual(
    await box(`+${a} sort:old`, { order: 'desc' }),
    await search({ conditions: [cond('tagInclude', a)], orderBy: 'uploadDate', order: 'desc' }),
  );
  // The Danbooru spelling (the default) leaves the order to orderBy: uploadDate when absent.
  t.deepEqual(
    await search({ conditions: [{ type: 'query', value: `${a} order:id` }] }),
    await search({ conditions: [cond('tagInclude', a)] }),
  );
});

test('lone signs and empty phrases are nothing; other name:value segments and unclosed phrases are text', async (t) => {
  const everything = await search({});
  t.deepEqual(await box('+ - ~ ""'), everything);
  t.is(everything.total, posts.length);
  t.deepEqual(await box('10:30'), await search({ conditions: [cond('textMatch', '10:30')], orderBy: 'relevance' }));
  t.deepEqual(await box(`"${phrase}`), await search({ conditions: [cond('textContains', phrase)] }));
});

test('the tags the box requires are left out of the tag facet, as tagInclude names are', async (t) => {
  const [a, b] = tags;
  const facets = ['tags'];
  const got = await box(`+${a} ${word}`, { facets });
  t.deepEqual(
    got,
    await search({ conditions: [cond('tagInclude', a), cond('textMatch', word)], orderBy: 'relevance', facets }),
  );
  t.false(got.facets!.tags.some((x) => x.name === a));
  t.true((await box(`-${b}`, { facets })).facets!.tags.some((x) => x.name === a));
});

test('what the box does not understand is 400 quoting it', async (t) => {
  for (const [value, needle] of [
    ['cat sort:random', '"sort:random"'],
    ['sort:', '"sort:"'],
    ['rating:pg', '"rating:pg"'],
    ['RATING:', '"RATING:"'],
    ['by:', '"by:"'],
    [Array.from({ length: 51 }, (_, i) => `+t${i}`).join(' '), 'at most 50 segments'],
    ['x'.repeat(1025), 'at most 1024 characters'],
  ]) {
    const got = await box(value);
    t.is(got.status, 400, value);
    t.true(got.error?.includes(needle), `${value}: ${got.error}`);
  }
  const spelled = await search({ conditions: [{ type: 'query', value: 'cat', spelling: 'klingon' }] });
  t.is(spelled.status, 400);
  t.regex(spelled.error ?? '', /spelling is one of danbooru, gallery/);
  t.regex((await box('sort:random')).error ?? '', /unknown sort "random" .*new, old, relevance, score, comments/);
});

test('the Atom feed reads the gallery spelling: the newest 20 of the same search', async (t) => {
  const [a, b] = tags;
  const q = `+${a} -${b} sort:old`;
  const res = await fx.app.request(`/posts.atom?tags=${encodeURIComponent(q)}&spelling=gallery`);
  t.is(res.status, 200);
  const feed = parseFeed(await res.text());
  const newest = await search({ conditions: [cond('tagInclude', a), cond('tagExclude', b)], orderBy: 'id' }).then((r) =>
    r.ids.slice(0, 20),
  );
  const uuidOf = new Map(posts.map((p) => [p.seq, p.id]));
  t.deepEqual(
    feed.items.map((i) => i.id),
    newest.map((seq) => `urn:uuid:${uuidOf.get(seq)}`),
  );
  t.is(feed.self, `${fx.app.url}/posts.atom?tags=${encodeURIComponent(q)}&spelling=gallery`);
  const bad = await fx.app.request('/posts.atom?tags=sort:random&spelling=gallery');
  t.is(bad.status, 400);
  t.regex(((await bad.json()) as { message: string }).message, /sort:random/);
  t.is((await fx.app.request('/posts.atom?tags=cat&spelling=klingon')).status, 400);
});
