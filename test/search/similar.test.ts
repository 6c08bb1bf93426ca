import test from 'ava';
import { hammingDistance } from '../../src/hashing/hamming.ts';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import sharp from 'sharp';
import { TRANSFORMS, type Transform } from '../../src/hashing/dihedral.ts';
import { findWithin, findWithinDihedral, MAX_DIFF } from '../../src/search/similar/find-similar.ts';
import { Random } from '../../tools/seed/random.ts';
import { randomImage } from '../helpers/fixtures.ts';
import { startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { plantedRow, plantPosts } from '../helpers/planted-posts.ts';

let fx: SeededApp;
const rnd = new Random(99);
test.before(async () => {
  fx = await startSeededApp({ count: 1500, seed: 11, clusters: 40 });
});
test.after.always(async () => fx?.app.close());

/**
 * `hash` with `d` bits flipped. `even` spreads them over the four 16-bit segments as evenly as
 * possible, the worst case for multi-index hashing (no segment is left close to the original).
 */
function flip(hash: string, d: number, even: boolean): string {
  const chars = hash.split('');
  const used = new Set<number>();
  for (let i = 0; i < d; i++) {
    let pos: number;
    do pos = even ? (i % 4) * 16 + rnd.int(0, 15) : rnd.int(0, 63);
    while (used.has(pos));
    used.add(pos);
    chars[pos] = chars[pos] === '0' ? '1' : '0';
  }
  return chars.join('');
}

/** `hash` with split[i] distinct random bits flipped inside 16-bit segment i. */
function flipSplit(hash: string, split: number[]): string {
  const chars = hash.split('');
  split.forEach((count, segment) => {
    const used = new Set<number>();
    while (used.size < count) used.add(segment * 16 + rnd.int(0, 15));
    for (const pos of used) chars[pos] = chars[pos] === '0' ? '1' : '0';
  });
  return chars.join('');
}

/** Every way of spreading up to `max` differing bits over the four segments (2,380 splits for 13). */
function allSplits(max: number): number[][] {
  const out: number[][] = [];
  for (let a = 0; a <= max; a++)
    for (let b = 0; a + b <= max; b++)
      for (let c = 0; a + b + c <= max; c++) for (let d = 0; a + b + c + d <= max; d++) out.push([a, b, c, d]);
  return out;
}

/** Inserts posts with the given hashes into SQLite and the index, like the upload path would. */
function plant(hashes: string[]): Promise<PostRecord[]> {
  const at = () => Date.parse('2025-01-01T00:00:00Z') + rnd.int(0, 10_000_000);
  return plantPosts(
    fx.app.services,
    hashes.map((hash) => plantedRow(rnd, at(), { text: 'planted', width: 8, height: 8, hash })),
  );
}

/** Brute force over every post in SQLite, in the documented order. */
function expected(posts: PostRecord[], hash: string, maxDiff: number) {
  return posts
    .map((p) => ({ id: p.id, diff: hammingDistance(hash, p.hash), createdAt: p.createdAt }))
    .filter((m) => m.diff <= maxDiff)
    .sort(
      (a, b) =>
        a.diff - b.diff ||
        (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
        (a.id < b.id ? -1 : 1),
    );
}

test.serial(
  'findWithin finds every post within maxDiff (0..11) and none beyond, closest then newest first',
  async (t) => {
    const queries = Array.from({ length: 12 }, () => rnd.bits64());
    // Per query: one post at every distance 0..13, evenly spread and at random, plus the seeded clusters.
    await plant(
      queries.flatMap((q) => Array.from({ length: 14 }, (_, d) => [flip(q, d, true), flip(q, d, false)]).flat()),
    );
    // For two queries, one post for every split of 0..13 differing bits over the four segments: the
    // lookup asks for two segments within floor(maxDiff / 3) bits, and these include every edge case.
    await plant(queries.slice(0, 2).flatMap((q) => allSplits(13).map((split) => flipSplit(q, split))));
    const clusterBases = fx.seed.clusters.slice(0, 4).map((c) => c.base);
    const posts = fx.posts();
    let checked = 0;
    let lookupMs = 0;
    for (const q of [...queries, ...clusterBases]) {
      for (let maxDiff = 0; maxDiff <= MAX_DIFF; maxDiff++) {
        const started = Date.now();
        const found = await findWithin(fx.app.services.postsIndex, q, maxDiff);
        lookupMs += Date.now() - started;
        const want = expected(posts, q, maxDiff);
        t.deepEqual(
          found.map(({ id, diff }) => ({ id, diff })),
          want.map(({ id, diff }) => ({ id, diff })),
          `maxDiff ${maxDiff}`,
        );
        for (const m of found) t.is(m.diff, hammingDistance(q, m.hash));
        checked++;
      }
    }
    t.log(`${checked} lookups, ${(lookupMs / checked).toFixed(1)} ms each on average`);
    await t.throwsAsync(findWithin(fx.app.services.postsIndex, queries[0], 12), { instanceOf: RangeError });
  },
);

async function similar(image: Buffer | null, query = '') {
  const form = new FormData();
  if (image) form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'query.png');
  else form.append('image', new Blob(['not an image at all'], { type: 'image/png' }), 'query.png');
  const res = await fx.app.request(`/api/post/similar${query}`, { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as any };
}

test.serial('POST /api/post/similar hashes the upload and lists posts within maxDiff', async (t) => {
  const image = await randomImage(4242);
  const first = await similar(image);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.regex(first.body.hash, /^[01]{64}$/);
  const hash: string = first.body.hash;
  const before = new Set(first.body.similar.map((s: { id: string }) => s.id));
  const [d0, d2, d9, d12] = await plant([hash, flip(hash, 2, true), flip(hash, 9, true), flip(hash, 12, true)]);

  const res = await similar(image, '?maxDiff=9');
  t.is(res.status, 200);
  const mine = res.body.similar.filter((s: { id: string }) => !before.has(s.id));
  const url = fx.app.services.config.mediaUrl;
  t.deepEqual(mine, [
    { id: d0.id, image: `${d0.id}.png`, imageURL: `${url}/${d0.id}.png`, diff: 0 },
    { id: d2.id, image: `${d2.id}.png`, imageURL: `${url}/${d2.id}.png`, diff: 2 },
    { id: d9.id, image: `${d9.id}.png`, imageURL: `${url}/${d9.id}.png`, diff: 9 },
  ]);
  t.false(res.body.similar.some((s: { id: string }) => s.id === d12.id));
  t.is((await similar(image, '?maxDiff=1')).body.similar.filter((s: { id: string }) => !before.has(s.id)).length, 1);
  t.is((await similar(image, '?limit=1')).body.similar.length, 1);
  for (const q of ['?maxDiff=12', '?maxDiff=-1', '?limit=0', '?limit=101'])
    t.is((await similar(image, q)).status, 400, q);
  const bad = await similar(null);
  t.is(bad.status, 400);
  t.true(Array.isArray(bad.body));
});

test.serial(
  'findWithinDihedral: every post within maxDiff of any of the eight hashes, once, under its closest transform',
  async (t) => {
    const posts = fx.posts();
    for (let round = 0; round < 3; round++) {
      // Seeded clusters as some of the eight hashes, so every transform has matches to find.
      const hashes = Object.fromEntries(
        TRANSFORMS.map((tr, i) => [tr, i % 2 === round % 2 ? fx.seed.clusters[round * 8 + i].base : rnd.bits64()]),
      ) as Record<Transform, string>;
      for (const maxDiff of [0, 4, 8, 11]) {
        const want = posts
          .map((p) => {
            const diffs = TRANSFORMS.map((tr) => hammingDistance(hashes[tr], p.hash));
            const diff = Math.min(...diffs);
            return { id: p.id, diff, transform: TRANSFORMS[diffs.indexOf(diff)], createdAt: p.createdAt };
          })
          .filter((m) => m.diff <= maxDiff)
          .sort(
            (a, b) =>
              a.diff - b.diff ||
              (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
              (a.id < b.id ? -1 : 1),
          );
        const found = await findWithinDihedral(fx.app.services.postsIndex, hashes, maxDiff);
        t.deepEqual(
          found.map(({ id, diff, transform }) => ({ id, diff, transform })),
          want.map(({ id, diff, transform }) => ({ id, diff, transform })),
          `maxDiff ${maxDiff}`,
        );
        if (maxDiff === 8) t.true(found.length > 0);
      }
    }
  },
);

/** `image` with the named symmetry applied by sharp (flop = mirror left-right; rotate is clockwise). */
async function transformed(image: Buffer, tr: Transform): Promise<Buffer> {
  let out = image;
  if (tr === 'mirror' || tr.startsWith('mirrorRotate')) out = await sharp(out).flop().png().toBuffer();
  const angle = Number(/(\d+)$/.exec(tr)?.[1] ?? 0);
  if (angle) out = await sharp(out).rotate(angle).png().toBuffer();
  return out;
}

test.serial(
  'POST /api/post/similar?transforms=dihedral finds each of the eight mirrored/rotated copies and names the transform',
  async (t) => {
    const image = await randomImage(777, 96, 64);
    const plainBefore = await similar(image);
    t.is(plainBefore.status, 200);
    const [planted] = await plant([plainBefore.body.hash]);
    const url = fx.app.services.config.mediaUrl;
    const item = { id: planted.id, image: `${planted.id}.png`, imageURL: `${url}/${planted.id}.png` };

    for (const tr of TRANSFORMS) {
      const copy = await transformed(image, tr);
      const res = await similar(copy, '?transforms=dihedral&maxDiff=4');
      t.is(res.status, 200, JSON.stringify(res.body));
      const mine = res.body.similar.find((s: { id: string }) => s.id === planted.id);
      t.truthy(mine, `${tr}: planted post not found`);
      t.is(mine?.transform, tr);
      t.true(mine.diff <= 4, `${tr}: diff ${mine?.diff}`);
      t.deepEqual(Object.keys(mine).sort(), ['diff', 'id', 'image', 'imageURL', 'transform']);
      for (const s of res.body.similar) t.true(TRANSFORMS.includes(s.transform));
      // The plain lookup reports the hash of the copy as uploaded, never a transformed one.
      const plain = await similar(copy, '?maxDiff=4');
      t.is(res.body.hash, plain.body.hash);
    }

    // Without the parameter nothing changes: no transform field, same matches as before the feature.
    const plain = await similar(image, '?maxDiff=4');
    t.deepEqual(
      plain.body.similar.find((s: { id: string }) => s.id === planted.id),
      { ...item, diff: 0 },
    );
    for (const s of plain.body.similar) t.false('transform' in s);
    const rotated = await similar(await transformed(image, 'rotate90'), '?maxDiff=4');
    t.false(
      rotated.body.similar.some((s: { id: string }) => s.id === planted.id),
      'a rotated copy is not found by the plain lookup',
    );
    for (const q of ['?transforms=all', '?transforms=', '?transforms=dihedral&transforms=dihedral'])
      t.is((await similar(image, q)).status, 400, q);
  },
);
