/**
 * Tags with counts (docs/decisions.md §10): prefix autocomplete, order, exact counts after every write,
 * and a database from before the counts existed.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { foldTag, prefixUpperBound } from '../../src/kernel/tag-fold.ts';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let user: TestUser;
let seed = 6300;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
});
test.after.always(() => app?.close());

async function get(url: string) {
  const res = await app.request(url);
  return { status: res.status, body: await res.json() };
}
async function write(method: string, url: string, body?: unknown) {
  const res = await app.request(url, {
    method,
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
}
async function upload(tags: string[]): Promise<string> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata: { tags } }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()).id;
}
/** The truth: a plain count over post_tags. */
const sqlCounts = (): Record<string, number> =>
  Object.fromEntries(
    (
      app.services.db
        .prepare('SELECT t.name, count(*) AS n FROM post_tags pt JOIN tags t ON t.id = pt.tag_id GROUP BY t.id')
        .all() as { name: string; n: number }[]
    ).map((r) => [r.name, r.n]),
  );
/** GET /api/tag with limit 100 unless the query names one. */
const listed = async (query = '') => {
  const { status, body } = await get(`/api/tag?${query.includes('limit=') ? '' : 'limit=100'}${query}`);
  if (status !== 200) throw new Error(`GET /api/tag: ${status}`);
  return body as { count: number; data: { id: number; name: string; count: number }[] };
};
const asCounts = (page: { data: { name: string; count: number }[] }) =>
  Object.fromEntries(page.data.map((t) => [t.name, t.count]));

test('folding and prefix ranges', (t) => {
  t.is(foldTag('Straße'), foldTag('STRASSE'));
  t.is(foldTag('ΟΔΟΣ'), foldTag('οδος'));
  t.is(foldTag('Ärger'), foldTag('a\u0308rger'), 'NFC: a composed and a decomposed umlaut agree');
  t.is(prefixUpperBound(''), undefined);
  t.is(prefixUpperBound('ab'), 'ac');
  t.is(prefixUpperBound('a\ud7ff'), 'a\ue000', 'skips the surrogate block');
  t.is(prefixUpperBound('a\u{10ffff}'), 'b');
  t.is(prefixUpperBound('a🙂'), 'a🙃');
});

test.serial('autocomplete: case-insensitive prefix, count then name order, paging, exact lookup', async (t) => {
  const a = await upload(['Cat', 'cute', 'animal']);
  await upload(['cat', 'dog', 'animal']);
  await upload(['catalog', 'animal', 'Ärger', 'a/b']);
  await upload(['dog']);

  const all = await listed();
  t.is(all.count, 8);
  t.deepEqual(
    all.data.map((x) => [x.name, x.count]),
    [
      ['animal', 3],
      ['dog', 2],
      ['Cat', 1],
      ['a/b', 1],
      ['cat', 1],
      ['catalog', 1],
      ['cute', 1],
      ['Ärger', 1],
    ],
  );
  for (const tag of all.data) t.is(tag.id, (await get(`/api/tag/${encodeURIComponent(tag.name)}`)).body.id);

  const names = async (prefix: string, extra = '') =>
    (await listed(`&prefix=${encodeURIComponent(prefix)}${extra}`)).data.map((x) => x.name);
  t.deepEqual(await names('ca'), ['Cat', 'cat', 'catalog']);
  t.deepEqual(await names('CA'), ['Cat', 'cat', 'catalog']);
  t.deepEqual(await names('cAtA'), ['catalog']);
  t.deepEqual(await names('är'), ['Ärger']);
  t.deepEqual(await names('A\u0308R'), ['Ärger'], 'a decomposed umlaut, upper case');
  t.deepEqual(await names('a'), ['animal', 'a/b']);
  t.deepEqual(await names('a/'), ['a/b']);
  t.deepEqual(await names('x'), []);
  t.deepEqual(await names('%'), [], 'LIKE wildcards mean nothing');
  t.deepEqual(
    await names(''),
    all.data.map((x) => x.name),
  );
  t.is((await listed('&prefix=c')).count, 4);
  t.deepEqual(await names('c', '&offset=1&limit=2'), ['cat', 'catalog']);
  t.deepEqual((await get('/api/tag')).body.data.length, 8, 'default limit 10');
  t.deepEqual((await get('/api/tag?limit=0')).body, { count: 8, data: [] });

  // docs/decisions.md §15 adds the tag's aliases, implications and implication jobs beside its count.
  t.deepEqual((await get('/api/tag/cat')).body, {
    id: all.data[4].id,
    name: 'cat',
    count: 1,
    category: 'general',
    aliases: [],
    implies: [],
    impliedBy: [],
    jobs: [],
  });
  t.deepEqual((await get('/api/tag/a%2Fb')).body.name, 'a/b');
  for (const missing of ['CAT', 'ca', 'nope', '%C3%A4rger']) {
    const res = await get(`/api/tag/${missing}`);
    t.is(res.status, 404, missing);
    t.deepEqual(res.body, { error: 'tag not found' });
  }
  // A tag nobody carries any more is neither listed nor found (the row stays, docs/decisions.md §4).
  await write('PUT', `/api/post/${a}`, { tags: ['animal', 'cute'] });
  t.is((await get('/api/tag/Cat')).status, 404);
  t.false((await names('c')).includes('Cat'));
});

test.serial('limits: default 10, above 100 lowered to 100; bad values are 400', async (t) => {
  await upload(Array.from({ length: 64 }, (_, i) => `bulk${String(i).padStart(3, '0')}`));
  await upload(Array.from({ length: 64 }, (_, i) => `bulk${String(i + 64).padStart(3, '0')}`));
  t.is((await get('/api/tag?prefix=bulk')).body.data.length, 10);
  const big = await get('/api/tag?prefix=BULK&limit=1000');
  t.is(big.body.count, 128);
  t.is(big.body.data.length, 100);
  t.deepEqual(
    big.body.data.slice(0, 2).map((x: { name: string }) => x.name),
    ['bulk000', 'bulk001'],
  );
  t.is((await get('/api/tag?prefix=bulk&offset=120&limit=100')).body.data.length, 8);
  for (const bad of [
    'limit=-1',
    'offset=-1',
    'limit=2.5',
    'offset=x',
    'limit=',
    `prefix=${'a'.repeat(65)}`,
    'prefix=a&prefix=b',
  ]) {
    const res = await get(`/api/tag?${bad}`);
    t.is(res.status, 400, bad);
    t.true(Array.isArray(res.body), bad);
  }
  t.is((await get(`/api/tag?prefix=${'a'.repeat(64)}`)).status, 200);
});

test.serial('counts are exact right after every create, edit, revert and delete', async (t) => {
  const check = async (step: string) => {
    const page = await listed('&prefix=w');
    const truth = Object.fromEntries(Object.entries(sqlCounts()).filter(([name]) => name.startsWith('w')));
    t.deepEqual(asCounts(page), truth, step);
    t.is(page.count, Object.keys(truth).length, step);
  };
  const p = await upload(['w1', 'w2']);
  const q = await upload(['w2', 'w3']);
  await check('after uploads');
  t.deepEqual(asCounts(await listed('&prefix=w')), { w1: 1, w2: 2, w3: 1 });
  await write('PUT', `/api/post/${p}`, { tags: ['w2', 'w4', 'w4'] });
  await check('after an edit');
  await write('PATCH', `/api/post/${q}`, { text: 'tags untouched' });
  await check('after an edit of the text only');
  await write('POST', `/api/post/${p}/revert`, { version: 1 });
  await check('after a revert');
  t.deepEqual(asCounts(await listed('&prefix=w')), { w1: 1, w2: 2, w3: 1 });
  await write('DELETE', `/api/post/${q}`);
  await check('after a delete');
  t.deepEqual(asCounts(await listed('&prefix=w')), { w1: 1, w2: 1 });
  await write('DELETE', `/api/post/${p}`);
  await check('after deleting the last carrier');
  t.deepEqual(await listed('&prefix=w'), { count: 0, data: [] });
  // And the stored counts agree with post_tags for every tag, carried or not.
  const drift = app.services.db
    .prepare('SELECT count(*) FROM tags t WHERE post_count != (SELECT count(*) FROM post_tags WHERE tag_id = t.id)')
    .pluck()
    .get();
  t.is(drift, 0);
});

test('a database from before the counts: counted and case-folded at start-up', async (t) => {
  const dataDir = tempDir('tags-legacy');
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  migrate(
    db,
    listMigrations().filter((m) => m.version <= 7),
  );
  const insert = db.prepare(
    `INSERT INTO posts (seq, id, text, rating, ext, mime, width, height, hash, created_at, updated_at)
     VALUES (?, ?, '', 'none', 'png', 'image/png', 1, 1, ?, '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')`,
  );
  const legacy: [number, string[]][] = [
    [1, ['Émile', 'old']],
    [2, ['old']],
    [3, ['ÉCOLE', 'old', 'odd']],
  ];
  for (const [seq, tags] of legacy) {
    insert.run(seq, `01900000-0000-7000-8000-00000000000${seq}`, '0'.repeat(64));
    for (const name of tags) {
      db.prepare('INSERT INTO tags (name) VALUES (?) ON CONFLICT DO NOTHING').run(name);
      db.prepare('INSERT INTO post_tags (post_seq, tag_id) SELECT ?, id FROM tags WHERE name = ?').run(seq, name);
    }
  }
  db.close();
  const old = await startTestApp({}, { dataDir });
  t.teardown(async () => {
    await old.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const page = await (await old.request('/api/tag')).json();
  t.deepEqual(
    page.data.map((x: { name: string; count: number }) => [x.name, x.count]),
    [
      ['old', 3],
      ['odd', 1],
      ['ÉCOLE', 1],
      ['Émile', 1],
    ],
  );
  const accented = await (await old.request(`/api/tag?prefix=${encodeURIComponent('é')}`)).json();
  t.deepEqual(
    accented.data.map((x: { name: string }) => x.name),
    ['ÉCOLE', 'Émile'],
  );
});
