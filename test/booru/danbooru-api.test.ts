import crypto from 'node:crypto';
import { parseFeed } from '@rowanmanning/feed-parser';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { pool, postJson } from '../helpers/search-fixture.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// The Danbooru read API and spelling (docs/decisions.md §20): fields, paging, errors, names that look
// like syntax, the Atom feed (read by a maintained feed parser), the backfill of md5 and file_size.

let app: TestApp;
let user: TestUser;
/** post number by upload index, and each upload's bytes */
const seqs: number[] = [];
const bytesOf: Buffer[] = [];
const TAGS = [['cat', 'black'], ['cat', 're:zero'], ['-dash'], ['~tilde', 'cat'], ['star*'], ['back\\slash'], ['dog']];

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await app.request(path);
  return {
    status: res.status,
    body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text(),
  };
}
const ids = async (tags: string, extra = ''): Promise<number[]> => {
  const res = await get(`/posts.json?tags=${encodeURIComponent(tags)}${extra}`);
  if (res.status !== 200) throw new Error(`${tags}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: number }[]).map((p) => p.id);
};

async function upload(i: number, tags: string[], rating = 'none'): Promise<number> {
  const bytes = await randomImage(77_000 + i, 40, 30);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: bytes, metadata: { text: `post number ${i}`, tags, rating }, force: '1' }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status}`);
  bytesOf[i] = bytes;
  const [post] = await ids(`md5:${crypto.createHash('md5').update(bytes).digest('hex')}`);
  return post;
}

test.before(async () => {
  app = await startTestApp({
    LOG_LEVEL: 'warn',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
  });
  user = await createUser(app);
  for (const [i, tags] of TAGS.entries()) seqs.push(await upload(i, tags, ['none', 'moderate', 'violent'][i % 3]));
});
test.after.always(async () => app?.close());

test.serial('a post carries Danbooru fields with our values', async (t) => {
  const { status, body } = await get(`/posts/${seqs[0]}.json`);
  t.is(status, 200);
  t.is(body.id, seqs[0]);
  t.is(body.md5, crypto.createHash('md5').update(bytesOf[0]).digest('hex'));
  t.is(body.file_size, bytesOf[0].length);
  t.is(body.rating, 'g');
  t.is(body.tag_string, 'black cat');
  t.is(body.tag_count, 2);
  t.is(body.image_width, 40);
  t.is(body.image_height, 30);
  t.is(body.file_ext, 'png');
  t.is(body.uploader_id, user.id);
  t.regex(body.created_at, /\+00:00$/);
  const file = await app.request(new URL(body.file_url).pathname);
  t.true(Buffer.from(await file.arrayBuffer()).equals(bytesOf[0]));
  t.deepEqual(await get('/posts/99999.json'), {
    status: 404,
    body: { success: false, message: 'no post has that number' },
  });
});

test.serial('names that look like syntax stay searchable with a backslash', async (t) => {
  t.deepEqual(await ids('\\-dash'), [seqs[2]]);
  t.deepEqual(await ids('\\~tilde'), [seqs[3]]);
  t.deepEqual(await ids('re\\:zero'), [seqs[1]]);
  t.deepEqual(await ids('star\\*'), [seqs[4]]);
  t.deepEqual(await ids('back\\\\slash'), [seqs[5]]);
  t.deepEqual(await ids('cat -re\\:zero'), [seqs[3], seqs[0]]);
  t.deepEqual(await ids('~dog ~black'), [seqs[6], seqs[0]]);
  t.deepEqual(await ids('ca*'), [seqs[3], seqs[1], seqs[0]]);
  t.deepEqual(await ids('cat rating:q,e order:id'), [seqs[1]]);
  t.deepEqual(await ids('text:"number 3"'), [seqs[3]]);
  t.deepEqual(await ids(`id:${seqs[1]}..${seqs[2]} order:id`), [seqs[1], seqs[2]]);
  t.deepEqual(await ids(`user:${user.name.toUpperCase()} rating:s`), []);
});

test.serial('unknown metatags, malformed ranges and bad paging are 400 naming the term', async (t) => {
  for (const [query, needle] of [
    ['tags=cat%20nope:1', 'nope:1'],
    ['tags=width:%3Ex', 'width:>x'],
    ['tags=date:2024-02-30', 'date:2024-02-30'],
    ['tags=rating:x', 'rating:x'],
    ['tags=order:best', 'order:best'],
    ['tags=md5:abc', 'md5:abc'],
    ['limit=0', 'limit'],
    ['limit=x', 'limit'],
    ['page=1001', 'page'],
    ['page=c5', 'page'],
  ]) {
    const res = await get(`/posts.json?${query}`);
    t.is(res.status, 400, query);
    t.is(res.body.success, false);
    t.true(res.body.message.includes(needle), `${query}: ${res.body.message}`);
  }
  t.is((await get(`/counts/posts.json?tags=${'a '.repeat(51)}`)).status, 400);
  // /image/search takes the spelling as a condition, answering its errors as { error }.
  const found = await postJson(app, '/image/search', { conditions: [{ type: 'query', value: 'cat -black' }] });
  t.deepEqual(found.body.data.images.map((i: { id: number }) => i.id).sort(), [seqs[1], seqs[3]].sort());
  const bad = await postJson(app, '/image/search', { conditions: [{ type: 'query', value: 'nope:1' }] });
  t.is(bad.status, 400);
  t.regex(bad.body.error, /nope:1/);
});

test.serial('limit is 1 to 200 (more is read as 200); counts and tags answer', async (t) => {
  t.is((await ids('', '&limit=2')).length, 2);
  t.is((await ids('', '&limit=5000')).length, TAGS.length);
  t.deepEqual((await get('/counts/posts.json?tags=cat')).body, { counts: { posts: 3 } });
  const tags = (await get('/tags.json?search[name_matches]=C*')).body;
  t.deepEqual(tags, [{ id: tags[0].id, name: 'cat', post_count: 3, category: 0 }]);
  const byName = (await get('/tags.json?search[order]=name&limit=2&page=2')).body.map((x: { name: string }) => x.name);
  t.deepEqual(byName, ['black', 'cat']);
  t.is((await get('/tags.json?search[order]=size')).status, 400);
});

test.serial('the Atom feed parses with a feed parser and links to the posts', async (t) => {
  const res = await app.request('/posts.atom?tags=cat');
  t.regex(res.headers.get('content-type') ?? '', /application\/atom\+xml/);
  const feed = parseFeed(await res.text());
  t.is(feed.meta.type, 'atom');
  t.is(feed.items.length, 3);
  t.true(
    feed.items.every((i) => i.url?.startsWith(`${app.url}/post/`)),
    JSON.stringify(feed.items.map((i) => i.url)),
  );
  t.deepEqual(feed.items[0].categories.map((c) => c.term).sort(), ['cat', '~tilde']);
});

test.serial('md5 and file_size of posts from before migration 020 are filled in by the backfill', async (t) => {
  app.services.db.prepare('UPDATE posts SET md5 = NULL, file_size = NULL').run();
  t.is((await get(`/posts/${seqs[4]}.json`)).body.md5, null);
  await app.services.fileFacts.runToEnd();
  const body = (await get(`/posts/${seqs[4]}.json`)).body;
  t.is(body.md5, crypto.createHash('md5').update(bytesOf[4]).digest('hex'));
  t.is(body.file_size, bytesOf[4].length);
});

test.serial('a client walking bN pages while 8 clients upload sees every earlier post exactly once', async (t) => {
  // More posts first, so the walk has several pages.
  await pool(
    4,
    Array.from({ length: 40 }, (_, i) => () => upload(100 + i, ['walk'])),
  );
  const before = new Set(await ids('', '&limit=200'));
  const seen: number[] = [];
  let stop = false;
  const uploaders = Array.from({ length: 8 }, async (_, c) => {
    for (let i = 0; !stop && i < 6; i++) await upload(1000 + c * 10 + i, ['walk']);
  });
  let page = '';
  for (;;) {
    const got = await ids('', `&limit=7${page}`);
    if (got.length === 0) break;
    seen.push(...got);
    page = `&page=b${got[got.length - 1]}`;
  }
  stop = true;
  await Promise.all(uploaders);
  const earlier = seen.filter((s) => before.has(s));
  t.is(new Set(seen).size, seen.length, 'no post twice');
  t.deepEqual(
    earlier.sort((a, b) => a - b),
    [...before].sort((a, b) => a - b),
    'every earlier post once',
  );
});

test.serial(
  'pools, parents, sources and tag categories in the spelling and the fields (docs/decisions.md §19)',
  async (t) => {
    const admin = await createUser(app, 0x1000 | 0x6);
    const parent = await app.request(`/api/post/${seqs[0]}`).then((r) => r.json() as Promise<{ id: string }>);
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({
        image: await randomImage(77_999, 40, 30),
        metadata: { tags: ['kid', 'painter'], parentId: parent.id, source: 'https://Example.org/x' },
        force: '1',
      }),
    });
    t.is(res.status, 201);
    const kid = (await res.json()) as { id: string };
    const category = await app.request('/api/tag/painter/category', {
      method: 'PUT',
      headers: { ...admin.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ category: 'artist' }),
    });
    t.is(category.status, 200);
    const made = await app.request('/api/pool', {
      method: 'POST',
      headers: { ...user.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Two Posts', postIds: [kid.id, parent.id] }),
    });
    const pool = (await made.json()) as { id: number };
    const [kidSeq] = await ids(`parent:${seqs[0]}`);
    t.deepEqual(await ids('source:example.ORG'), [kidSeq]);
    t.deepEqual(await ids(`pool:${pool.id} order:id`), [seqs[0], kidSeq]);
    t.false((await ids('parent:none')).includes(kidSeq));
    const post = (await get(`/posts/${kidSeq}.json`)).body;
    t.is(post.parent_id, seqs[0]);
    t.is(post.source, 'https://Example.org/x');
    t.is(post.tag_string, 'painter kid');
    t.is(post.tag_string_artist, 'painter');
    t.is(post.tag_count_general, 1);
    t.is(post.pool_string, `pool:${pool.id}`);
    t.true((await get(`/posts/${seqs[0]}.json`)).body.has_children);
    t.deepEqual((await get('/tags.json?search[name_matches]=paint*')).body[0].category, 1);
    const pools = (await get('/pools.json?search[name_matches]=two_*')).body;
    t.is(pools.length, 1);
    t.is(pools[0].name, 'Two_Posts');
    t.deepEqual(pools[0].post_ids, [kidSeq, seqs[0]]);
    t.is((await get('/pools/99999.json')).status, 404);
    t.is((await get('/posts.json?tags=pool:abc')).status, 400);
  },
);
