/**
 * Robust near-duplicates through the API (docs/decisions.md §16): `?robust=1` on POST /api/post/similar and
 * GET /api/post/{id}/similar, with real photographs (test/fixtures/photos) and the evaluation set's
 * own transforms (bench/robust/transforms.ts).
 */
import sharp from 'sharp';
import test from 'ava';
import { TRANSFORMS } from '../../bench/robust/transforms.ts';
import { encodeDescriptor } from '../../src/robust/format.ts';
import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import { reindex } from '../../src/search/reindex.ts';
import { verify } from '../../src/search/verify.ts';
import { descriptorsSettled, startTestApp, type TestApp } from '../helpers/app.ts';
import { uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const PHOTOS = new URL('../fixtures/photos/', import.meta.url).pathname;
const copyOf = (transform: string, photo = 'chelsea.jpg') =>
  TRANSFORMS.find((t) => t.name === transform)!.apply(PHOTOS + photo, 0);

let app: TestApp;
let user: TestUser;
const posts: Record<string, string> = {};
/** descriptor tasks of their own run while the uploads were processed (none: they come with the thumbnails) */
let descriptorTasks = 0;

const upload = async (image: Buffer, text: string): Promise<string> => {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image, force: '1', metadata: { text } }),
  });
  if (res.status !== 201) throw new Error(`upload ${text}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
};

const similar = async (image: Buffer, query = 'robust=1') => {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'query');
  const res = await app.request(`/api/post/similar?${query}`, { method: 'POST', body: form });
  return { status: res.status, body: await res.json() };
};

const flat = () =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
const tiny = () =>
  sharp({ create: { width: 4, height: 3, channels: 3, background: '#203040' } })
    .png()
    .toBuffer();

test.before(async () => {
  app = await startTestApp({ ROBUST_DESCRIPTORS: '1' });
  user = await createUser(app, 0x2 | 0x4);
  const pool = app.services.hashPool;
  const task = pool.robust.bind(pool);
  pool.robust = (...args) => {
    descriptorTasks++;
    return task(...args);
  };
  const fs = await import('node:fs');
  for (const name of ['chelsea', 'coffee', 'motorcycle'])
    posts[name] = await upload(fs.readFileSync(`${PHOTOS}${name}.jpg`), name);
  posts.flat = await upload(await flat(), 'flat');
  posts.tiny = await upload(await tiny(), 'tiny');
  posts.captioned = await upload(await copyOf('caption', 'coffee.jpg'), 'captioned coffee');
  await descriptorsSettled(app);
  // Counted up to here: the queries below run tasks of their own.
  uploadsDescriptorTasks = descriptorTasks;
});
test.after.always(() => app?.close());

let uploadsDescriptorTasks = -1;

test("a new post's descriptor comes from its thumbnails' decode, and equals the one the standalone task computes", async (t) => {
  t.is(uploadsDescriptorTasks, 0, 'no descriptor task of its own ran for the uploads');
  for (const name of ['chelsea', 'coffee', 'motorcycle']) {
    const stored = app.services.db.prepare('SELECT robust FROM posts WHERE id = ?').pluck().get(posts[name]) as Buffer;
    // The backfill's and a query's path: one definition of the descriptor's raster (DESCRIPTOR_SOURCE).
    t.deepEqual(stored, encodeDescriptor(await app.services.hashPool.robust(`${PHOTOS}${name}.jpg`, 'urgent')), name);
  }
});

test('crops, borders and captions of a photograph are robust matches, with score and kind, and nothing unrelated is', async (t) => {
  for (const [transform, kinds] of [
    ['crop10-side', ['crop']],
    ['crop10-centre', ['crop']],
    ['border-black', ['similar', 'crop', 'overlay']],
    ['caption', ['overlay']],
  ] as const) {
    const { status, body } = await similar(await copyOf(transform));
    t.is(status, 200, transform);
    t.regex(body.hash, /^[01]{64}$/);
    const inSimilar = body.similar.some((s: { id: string }) => s.id === posts.chelsea);
    const hit = body.robust.find((r: { id: string }) => r.id === posts.chelsea);
    t.true(inSimilar !== Boolean(hit), `${transform}: found in exactly one list`);
    // the 64-bit hash misses these (a 10 % crop moves it by about 14 bits, a caption further)
    if (transform !== 'border-black') t.truthy(hit, `${transform}: a robust match`);
    if (hit) {
      t.deepEqual(Object.keys(hit).sort(), ['id', 'image', 'imageURL', 'kind', 'score']);
      t.is(hit.image, `${posts.chelsea}.jpg`);
      t.is(hit.imageURL, `${app.url}/media/${posts.chelsea}.jpg`);
      t.true(hit.score > 0.7 && hit.score <= 1, `${transform}: score ${hit.score}`);
      t.true((kinds as readonly string[]).includes(hit.kind), `${transform}: kind ${hit.kind}`);
    }
    const others = body.robust.filter((r: { id: string }) => r.id !== posts.chelsea);
    t.deepEqual(others, [], `${transform}: no unrelated robust match`);
  }
});

test('a captioned copy of a pillarboxed photograph is found through the caption band window', async (t) => {
  // Black bars of 30 % of the width on each side, then a caption above: the band's text stops the
  // trim, so the copy's box keeps the bars (no fixed window lines up with the photograph, about 100
  // bits away); the band window is the picture below the band, trimmed of the bars.
  const fs = await import('node:fs');
  const os = await import('node:os');
  const src = `${PHOTOS}chelsea.jpg`;
  const { width } = await sharp(src).metadata();
  const bars = Math.round(width! * 0.3);
  const dir = fs.mkdtempSync(`${os.tmpdir()}/imgpost-band-`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const path = `${dir}/pillarboxed.png`;
  fs.writeFileSync(path, await sharp(src).extend({ left: bars, right: bars, background: '#000' }).png().toBuffer());
  const { status, body } = await similar(await TRANSFORMS.find((x) => x.name === 'caption')!.apply(path, 0));
  t.is(status, 200);
  t.deepEqual(
    body.robust.map((r: { id: string; kind: string }) => [r.id, r.kind]),
    [[posts.chelsea, 'overlay']],
    JSON.stringify(body),
  );
});

/**
 * chelsea under a white band at 80 % opacity over the middle half of its height, with text: the
 * whole picture's hashes move beyond the threshold (84 bits from the photograph's), the top and
 * bottom rows of cells (cells.ts) do not move.
 */
async function bannerCopy(): Promise<Buffer> {
  const src = `${PHOTOS}chelsea.jpg`;
  const { width: w, height: h } = await sharp(src).metadata();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <rect x="0" y="${h! * 0.25}" width="${w}" height="${h! * 0.5}" fill="#ffffff" fill-opacity="0.8"/>
    <text x="50%" y="55%" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${Math.round(h! * 0.12)}">SAMPLE</text></svg>`;
  return sharp(src)
    .composite([{ input: Buffer.from(svg), left: 0, top: 0 }])
    .png()
    .toBuffer();
}

test('a photograph under a banner across its middle is found by its cells, kind overlay', async (t) => {
  const { status, body } = await similar(await bannerCopy());
  t.is(status, 200);
  t.deepEqual(
    body.robust.map((r: { id: string; kind: string }) => [r.id, r.kind]),
    [[posts.chelsea, 'overlay']],
    JSON.stringify(body),
  );
  t.true(body.robust[0].score >= 0.9, `score ${body.robust[0].score}`);
});

test('without robust=1 the answer has no robust list; a bad robust value is 400', async (t) => {
  const image = await copyOf('crop10-side');
  const plain = await similar(image, '');
  t.is(plain.status, 200);
  t.false('robust' in plain.body);
  for (const bad of ['robust=yes', 'robust=2', 'robust=']) {
    const res = await similar(image, bad);
    t.is(res.status, 400, bad);
    t.true(JSON.stringify(res.body).includes('robust'), `${bad}: names the parameter`);
  }
  const get = await app.request(`/api/post/${posts.chelsea}/similar?robust=maybe`);
  t.is(get.status, 400);
});

test('GET /api/post/{id}/similar?robust=1 lists a stored captioned copy, never the post itself', async (t) => {
  const res = await app.request(`/api/post/${posts.coffee}/similar?robust=1`);
  t.is(res.status, 200);
  const body = await res.json();
  const ids = [...body.similar, ...body.robust].map((m: { id: string }) => m.id);
  t.false(ids.includes(posts.coffee));
  const hit = body.robust.find((r: { id: string }) => r.id === posts.captioned);
  t.truthy(hit, JSON.stringify(body));
  t.is(hit.kind, 'crop', 'the captioned post contains the coffee picture: coffee is a crop of it');
  t.deepEqual(
    body.robust.map((r: { id: string }) => r.id),
    [posts.captioned],
  );
  const plain = await (await app.request(`/api/post/${posts.coffee}/similar`)).json();
  t.false('robust' in plain);
  t.is((await app.request('/api/post/00000000-0000-7000-8000-000000000000/similar?robust=1')).status, 404);
});

test("a flat or tiny picture gets no robust matches and is nobody's", async (t) => {
  for (const image of [await flat(), await tiny()]) {
    const { status, body } = await similar(image);
    t.is(status, 200);
    t.deepEqual(body.robust, []);
  }
  for (const name of ['flat', 'tiny']) {
    const body = await (await app.request(`/api/post/${posts[name]}/similar?robust=1`)).json();
    t.deepEqual(body.robust, [], name);
  }
  for (const name of ['chelsea', 'coffee', 'motorcycle']) {
    const body = await (await app.request(`/api/post/${posts[name]}/similar?robust=1`)).json();
    t.false(
      body.robust.some((r: { id: string }) => r.id === posts.flat || r.id === posts.tiny),
      name,
    );
  }
});

// Serial, so it runs before the others: the index they ask is the rebuilt one.
test.serial('a rebuilt index (what `imgpost reindex` runs) carries the robust terms', async (t) => {
  const before = await app.services.postsIndex.aliasTarget();
  const result = await reindex(app.services, { settleMs: 0, retire: 'now', merge: false });
  t.not(result.index, before);
  const body = await (await app.request(`/api/post/${posts.coffee}/similar?robust=1`)).json();
  t.deepEqual(
    body.robust.map((r: { id: string }) => r.id),
    [posts.captioned],
  );
  // the cells' terms too
  const { body: banner } = await similar(await bannerCopy());
  t.deepEqual(
    banner.robust.map((r: { id: string }) => r.id),
    [posts.chelsea],
  );
  const withCells = await app.services.postsIndex.client.count({
    index: app.services.postsIndex.alias,
    query: { exists: { field: 'robust_cell' } },
  });
  t.is(
    withCells.count,
    4,
    'the three photographs and the captioned copy; the flat and the tiny picture have no terms at all',
  );
  // The terms are indexed, not kept in _source; their descriptor's digest is, and verify compares it.
  const es = app.services.postsIndex.client;
  const source = async (id: string) =>
    (await es.get({ index: app.services.postsIndex.alias, id }))._source as Record<string, unknown>;
  const kept = await source(posts.coffee);
  t.false('robust_any' in kept || 'robust_full' in kept || 'robust_cell' in kept);
  t.regex(String(kept.robust_digest), /^[\w-]{16}$/);
  t.is((await source(posts.flat)).robust_digest, null, 'a flat picture: no terms, no digest');
  t.deepEqual((await verify(app.services)).drift, []);
  // A document written without the descriptor's terms (as before its descriptor was computed) is drift, and
  // verify's repair brings them back.
  const post = app.services.postRepository.getById(posts.motorcycle)!;
  await app.services.postsIndex.apply([{ postId: post.id, version: post.version + 1, doc: toPostDocument(post) }], {
    targets: [result.index],
    refresh: true,
  });
  const drift = (await verify(app.services, { recheckMs: 0 })).drift;
  t.deepEqual(drift, [
    { kind: 'stale', postId: post.id, reason: `version ${post.version + 1} != ${post.version}, robust_digest` },
  ]);
  t.true((await verify(app.services, { recheckMs: 0, repair: true })).repaired > 0);
  t.deepEqual((await verify(app.services)).drift, []);
  t.regex(String((await source(posts.motorcycle)).robust_digest), /^[\w-]{16}$/);
});

test('/metrics reports the posts still waiting for their descriptor', async (t) => {
  const text = await (await app.request('/metrics')).text();
  t.regex(text, /^imgpost_robust_descriptors_pending 0$/m);
});
