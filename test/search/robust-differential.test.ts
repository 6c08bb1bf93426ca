/**
 * Differential check of the robust lookup (docs/decisions.md §16, issue 25): for a few hundred posts, what
 * GET /api/post/{id}/similar?robust=1 answers (the index's candidates, then the rule on their
 * stored descriptors) is exactly what a linear scan of SQLite under the same rule returns
 * (src/robust/rule.ts), in the same order. The descriptors are variants of real ones
 * (photographs of test/fixtures/photos and copies of them) with bits flipped segment by segment,
 * so pairs fall on both sides of each condition: shared segments and distance. Some segments keep
 * their value but for one bit (shared only through the lookup's probes) or two (never shared under
 * PROBE_RADIUS 1), so a lookup that probed otherwise than the scan counts would answer differently.
 * Their cells (cells.ts) vary too (kept, near the threshold, one segment kept, random, below the
 * quality), so some pairs match by their cells alone and some meet condition 2 only through them.
 */
import test from 'ava';
import sharp from 'sharp';
import { TRANSFORMS } from '../../bench/robust/transforms.ts';
import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import {
  CELL_COUNT,
  CELL_QUALITY,
  CELL_THRESHOLD,
  CELL_WORDS,
  CELLS_NEEDED,
  type Cells,
} from '../../src/robust/cells.ts';
import { matchDescriptors, robustDescriptor } from '../../src/robust/descriptor.ts';
import { encodeDescriptor } from '../../src/robust/format.ts';
import { BASE } from '../../src/robust/grey.ts';
import {
  MIN_SHARED,
  PROBE_RADIUS,
  robustMatch,
  sharedSegments,
  sharedTerms,
  THRESHOLD,
  type Descriptor,
} from '../../src/robust/rule.ts';
import { hamming256 } from '../../src/robust/pdq.ts';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { findRobust, scanRobust } from '../../src/search/similar/robust-lookup.ts';
import { Random } from '../../tools/seed/random.ts';
import { uuidV7 } from '../../tools/seed/seed.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const PHOTOS = new URL('../fixtures/photos/', import.meta.url).pathname;
const rnd = new Random(25);
let app: TestApp;
const planted: { post: PostRecord; d: Descriptor }[] = [];

async function real(image: Buffer): Promise<Descriptor> {
  const { data, info } = await sharp(image, { autoOrient: true })
    .greyscale()
    .resize(BASE, BASE, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const d = robustDescriptor({ width: info.width, height: info.height, pixels: data });
  return { quality: d.quality, hashes: d.hashes, cells: d.cells };
}

const flip = (hashes: Uint32Array, h: number, bit: number) => (hashes[h * 8 + (bit >> 5)] ^= 1 << (31 - (bit & 31)));

/**
 * Each hash of `d` with a few segments kept (some exactly, some but for 1 or 2 bits) and the others'
 * bits flipped at rate p: distances 0..~90 bits.
 */
function variant(d: Descriptor): Descriptor {
  const hashes = Uint32Array.from(d.hashes);
  for (let h = 0; h < hashes.length / 8; h++) {
    const p = 0.02 + rnd.next() * 0.33;
    const kept = new Set(Array.from({ length: rnd.int(0, 4) }, () => rnd.int(0, 15)));
    for (let bit = 0; bit < 256; bit++) if (!kept.has(bit >> 4) && rnd.next() < p) flip(hashes, h, bit);
    for (const s of kept) {
      const off = rnd.int(0, 2); // bits off in a kept segment: 0, 1 (probed) or 2 (beyond the probes)
      const first = rnd.int(0, 15);
      if (off >= 1) flip(hashes, h, s * 16 + first);
      if (off === 2) flip(hashes, h, s * 16 + ((first + rnd.int(1, 15)) % 16));
    }
  }
  return { quality: d.quality, hashes, cells: cellVariant(d.cells!) };
}

/**
 * The cells of `c` with some kept (exactly, or within a few bits), some with one segment kept and
 * the rest flipped, the others flipped at random, and a few below CELL_QUALITY: pairs then fall on
 * both sides of the cells' count (CELLS_NEEDED within CELL_THRESHOLD) and of their share of
 * condition 2 (a cell counted with one equal segment).
 */
function cellVariant(c: Cells): Cells {
  const words = Uint32Array.from(c.words);
  const quality = Uint8Array.from(c.quality);
  const keep = rnd.next() < 0.5 ? rnd.int(CELLS_NEEDED - 2, CELLS_NEEDED + 2) : rnd.int(0, 3);
  for (let k = 0; k < CELL_COUNT; k++) {
    const w = k * CELL_WORDS;
    const fate = k < keep ? rnd.int(0, 1) : rnd.int(2, 3);
    // 0: within a few bits; 1: CELL_THRESHOLD-ish bits off, spread; 2: one segment kept, the rest flipped; 3: random
    const flips = fate === 0 ? rnd.int(0, 4) : fate === 1 ? rnd.int(CELL_THRESHOLD - 2, CELL_THRESHOLD + 3) : 0;
    for (let f = 0; f < flips; f++) {
      const bit = rnd.int(0, 63);
      words[w + (bit >> 5)] ^= 1 << (bit & 31);
    }
    if (fate === 2) {
      words[w] ^= 0xffff;
      words[w + 1] ^= 0xffffffff;
    }
    if (fate === 3) {
      words[w] = rnd.int(0, 0xffff) * 0x10000 + rnd.int(0, 0xffff);
      words[w + 1] = rnd.int(0, 0xffff) * 0x10000 + rnd.int(0, 0xffff);
    }
    if (rnd.next() < 0.1) quality[k] = rnd.int(0, CELL_QUALITY - 1);
  }
  return { words, quality };
}

/** cells counted on both sides and within CELL_THRESHOLD bits */
function agreeing(a: Cells, b: Cells): number {
  let n = 0;
  for (let k = 0; k < CELL_COUNT; k++) {
    if (a.quality[k] < CELL_QUALITY || b.quality[k] < CELL_QUALITY) continue;
    let bits = 0;
    for (let w = k * CELL_WORDS; w < (k + 1) * CELL_WORDS; w++)
      for (let x = (a.words[w] ^ b.words[w]) >>> 0; x; x &= x - 1) bits++;
    if (bits <= CELL_THRESHOLD) n++;
  }
  return n;
}

const randomHash = () => Array.from({ length: 64 }, () => (rnd.next() < 0.5 ? '0' : '1')).join('');

test.before(async () => {
  app = await startTestApp();
  const fs = await import('node:fs');
  const bases: Descriptor[] = [];
  for (const photo of ['chelsea.jpg', 'coffee.jpg', 'motorcycle.jpg']) {
    bases.push(await real(fs.readFileSync(PHOTOS + photo)));
    bases.push(await real(await TRANSFORMS.find((t) => t.name === 'caption')!.apply(PHOTOS + photo, 0)));
  }
  const descriptors = bases.flatMap((b) => [b, ...Array.from({ length: 39 }, () => variant(b))]);
  // flat pictures: stored, never matching
  for (let i = 0; i < 8; i++) descriptors.push({ ...variant(bases[i % bases.length]), quality: rnd.int(0, 49) });
  const { postRepository, postsIndex, db } = app.services;
  db.transaction(() => {
    for (const d of descriptors) {
      const at = Date.parse('2025-01-01T00:00:00Z') + rnd.int(0, 10_000_000);
      const id = uuidV7(at, rnd);
      const seq = postRepository.insert({
        id,
        text: 'planted',
        rating: 'none',
        ext: 'png',
        mime: 'image/png',
        width: 8,
        height: 8,
        hash: randomHash(),
        uploaderId: null,
        createdAt: new Date(at).toISOString(),
        tags: [],
      });
      postRepository.robust.store(seq, encodeDescriptor(d));
      planted.push({ post: postRepository.getBySeq(seq)!, d });
    }
  })();
  await postsIndex.apply(
    planted.map(({ post }) => ({
      postId: post.id,
      version: post.version,
      doc: toPostDocument(post, postRepository.robust.ofId(post.id)),
    })),
    { refresh: true },
  );
});
test.after.always(() => app?.close());

/** the posts the differential test below looks up */
const queried = () => planted.filter((_, i) => i % 8 === 0);

test('the pairs straddle both conditions of the rule, and the probes decide some of them', (t) => {
  let oneShort = 0;
  let tooFar = 0;
  let matches = 0;
  let throughProbes = 0;
  let beyondProbes = 0;
  let byCells = 0;
  let cellsShort = 0;
  let termsFromCells = 0;
  for (const a of queried())
    for (const b of planted) {
      if (a === b) continue;
      const shared = sharedSegments(a.d.hashes, b.d.hashes);
      const near = robustMatch(a.d, b.d, THRESHOLD, { needed: 0, radius: PROBE_RADIUS }) !== null;
      if (near && shared === MIN_SHARED - 1) oneShort++;
      if (shared >= MIN_SHARED && !near && a.d.quality >= 50 && b.d.quality >= 50) tooFar++;
      if (robustMatch(a.d, b.d)) matches++;
      // matches only because a segment within PROBE_RADIUS bits counts: a lookup asking exact terms would miss them
      if (near && shared >= MIN_SHARED && sharedSegments(a.d.hashes, b.d.hashes, 0) < MIN_SHARED) throughProbes++;
      // would match if segments one bit further counted: a lookup probing wider would return them
      if (near && shared < MIN_SHARED && sharedSegments(a.d.hashes, b.d.hashes, PROBE_RADIUS + 1) >= MIN_SHARED)
        beyondProbes++;
      // the cells (cells.ts): matches that only the cells make, cell counts just short, condition 2 met through cells
      if (robustMatch(a.d, b.d) && matchDescriptors(a.d, b.d, THRESHOLD) === null) byCells++;
      if (agreeing(a.d.cells!, b.d.cells!) === CELLS_NEEDED - 1 && matchDescriptors(a.d, b.d, THRESHOLD) === null)
        cellsShort++;
      if (robustMatch(a.d, b.d) && shared < MIN_SHARED && sharedTerms(a.d, b.d) >= MIN_SHARED) termsFromCells++;
    }
  t.true(oneShort > 0, 'within the distance but one shared segment short (left out by both)');
  t.true(tooFar > 0, 'candidates of the index beyond the distance');
  t.true(matches > 100, `${matches} matching pairs`);
  t.true(throughProbes > 10, `${throughProbes} matching pairs need a probed segment`);
  t.true(beyondProbes > 10, `${beyondProbes} pairs within the distance have a segment just beyond the probes`);
  t.true(byCells > 10, `${byCells} matching pairs match by their cells alone`);
  t.true(cellsShort > 10, `${cellsShort} pairs not near by their hashes have one agreeing cell too few`);
  t.true(termsFromCells > 10, `${termsFromCells} matching pairs meet condition 2 only with their cells' terms`);
  t.is(hamming256(planted[0].d.hashes, planted[0].d.hashes), 0);
  // the captioned copies carry the caption band's window (src/robust/band.ts), the photographs not
  const sizes = new Set(planted.map((p) => p.d.hashes.length / 8));
  t.deepEqual([...sizes].sort(), [21, 22]);
});

test('the indexed lookup answers exactly what a scan of SQLite under the same rule returns', async (t) => {
  const store = app.services.postRepository.robust;
  let compared = 0;
  for (let i = 0; i < planted.length; i += 8) {
    const { post, d } = planted[i];
    const res = await app.request(`/api/post/${post.id}/similar?robust=1&limit=100`);
    t.is(res.status, 200);
    const body = (await res.json()) as { similar: unknown[]; robust: { id: string; score: number; kind: string }[] };
    t.deepEqual(body.similar, []);
    const scan = scanRobust(store, d)
      .filter((m) => m.id !== post.id)
      .slice(0, 100);
    t.deepEqual(
      body.robust.map((r) => [r.id, r.score, r.kind]),
      scan.map((m) => [m.id, m.score, m.kind]),
      `post ${i}`,
    );
    compared += scan.length;
  }
  t.true(compared > 200, `${compared} matches compared`);
});

test('where the cap on candidates binds, the lookup keeps the same ones as the scan (most shared terms, then lowest number)', async (t) => {
  const { postsIndex, postRepository } = app.services;
  let capped = 0;
  for (let i = 0; i < planted.length; i += 24) {
    const { d } = planted[i];
    const all = scanRobust(postRepository.robust, d, Infinity);
    for (const cap of [3, 20]) {
      const scan = scanRobust(postRepository.robust, d, cap);
      if (scan.length < all.length) capped++;
      t.deepEqual(
        (await findRobust(postsIndex, postRepository.robust, d, cap)).map((m) => [m.id, m.distance]),
        scan.map((m) => [m.id, m.distance]),
        `post ${i}, cap ${cap}`,
      );
    }
  }
  t.true(capped > 5, `the cap left matches out in ${capped} lookups`);
});
