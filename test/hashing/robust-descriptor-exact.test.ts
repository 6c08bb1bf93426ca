import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { syntheticRasters } from '../../bench/robust/synthetic-rasters.ts';
import { createHashPool } from '../../src/hashing/pool.ts';
import { robustDescriptor, WINDOW_SETS } from '../../src/robust/descriptor.ts';
import { integral } from '../../src/robust/grey.ts';
import { medianOf, toHex } from '../../src/robust/pdq.ts';
import { phashOfBox } from '../../src/hashing/phash-box.ts';

/**
 * Stored descriptors carry no version of the code that made them (the format names only the raster,
 * the trim and the windows), so any change to the descriptor's code must reproduce them bit for bit.
 * The expected values are never regenerated to make a change pass: ROBUST_EXACT_WRITE=1 rewrites
 * them, for a deliberate format bump (last: format 3, the cells of src/robust/cells.ts; before
 * it format 2, the raster from the small thumbnail's size and the caption band's window).
 * The whole evaluation set is checked by bench/robust/descriptor-exact.ts; this is the cheap guard.
 */
const PHOTOS = new URL('../fixtures/photos/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/robust-descriptors.json', import.meta.url).pathname;
const write = process.env.ROBUST_EXACT_WRITE === '1';
const expected: { photos: Record<string, string>; synthetic: Record<string, string> } = write
  ? { photos: {}, synthetic: {} }
  : JSON.parse(readFileSync(EXPECTED, 'utf8'));

const pool = createHashPool({ workers: 2 });
const dir = mkdtempSync(join(tmpdir(), 'imgpost-robust-exact-'));
test.after.always(async () => {
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});

// Copies as the evaluation makes them (lossless PNG, so only the decoder's version matters), and an
// EXIF-rotated one for the worker's autoOrient.
const TRANSFORMS: Record<string, (s: Sharp, w: number, h: number) => Sharp> = {
  original: (s) => s,
  crop10side: (s, w, h) =>
    s.extract({ left: Math.round(w * 0.1), top: 0, width: w - Math.round(w * 0.1), height: h }).png(),
  crop20centre: (s, w, h) =>
    s
      .extract({
        left: Math.round(w * 0.1),
        top: Math.round(h * 0.1),
        width: Math.round(w * 0.8),
        height: Math.round(h * 0.8),
      })
      .png(),
  borderBlack: (s, w) =>
    s
      .extend({
        top: Math.round(w / 10),
        bottom: Math.round(w / 10),
        left: Math.round(w / 10),
        right: Math.round(w / 10),
        background: '#000',
      })
      .png(),
  letterboxWhite: (s, w) => s.extend({ top: Math.round(w / 8), bottom: Math.round(w / 8), background: '#fff' }).png(),
  mirror: (s) => s.flop().png(),
  scale50: (s, w) => s.resize(Math.round(w / 2)).png(),
  jpeg20: (s) => s.jpeg({ quality: 20 }),
  exif6: (s) => s.jpeg({ quality: 90 }).withMetadata({ orientation: 6 }),
};

for (const photo of ['chelsea', 'coffee', 'motorcycle']) {
  for (const [name, make] of Object.entries(TRANSFORMS)) {
    const key = `${photo}.${name}`;
    test(`the worker's descriptor of ${key} is the stored one, bit for bit`, async (t) => {
      const src = readFileSync(join(PHOTOS, `${photo}.jpg`));
      const { width, height } = await sharp(src).metadata();
      const path = join(dir, key);
      writeFileSync(path, name === 'original' ? src : await make(sharp(src), width!, height!).toBuffer());
      const d = await pool.robust(path, 'urgent');
      const hex = `${d.quality} ${toHex(d.hashes)} ${Buffer.from(d.cells!.quality).toString('hex')} ${toHex(d.cells!.words)}`;
      if (write) expected.photos[key] = hex;
      else t.is(hex, expected.photos[key]);
      t.true(d.hashes.length === 8 * 21 && d.quality > 0);
    });
  }
}

test('descriptors of synthetic rasters (every window set, the trimmed 64-bit hash) are the stored ones', (t) => {
  for (const [name, g] of syntheticRasters()) {
    const d = robustDescriptor(g, { windows: WINDOW_SETS.w32 });
    const all = [
      d.trimmed.x,
      d.trimmed.y,
      d.trimmed.w,
      d.trimmed.h,
      d.quality,
      toHex(d.hashes),
      phashOfBox(integral(g), d.trimmed),
      Buffer.from(d.cells!.quality).toString('hex'),
      toHex(d.cells!.words),
    ].join(' ');
    const digest = createHash('sha256').update(all).digest('hex');
    if (write) expected.synthetic[name] = digest;
    else t.is(digest, expected.synthetic[name], name);
  }
  if (write) t.pass();
});

test('the median by selection is the median by sorting, ties and signed zeros included', (t) => {
  let seed = 99;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pools = [
    [0],
    [-0, 0],
    [1, 2],
    [-1, -0, 0, 1],
    [3, 3, 3, 5, -2],
    [0.1, 0.2, 0.30000000000000004, -7e-17, 7e-17],
  ];
  for (let round = 0; round < 3000; round++) {
    const values = new Float64Array(256);
    const pool = pools[round % pools.length];
    for (let i = 0; i < 256; i++)
      values[i] = round % 7 === 6 ? (rnd() - 0.5) * 1e4 : pool[Math.floor(rnd() * pool.length)];
    const sorted = Float64Array.from(values).sort();
    const want = (sorted[127] + sorted[128]) / 2;
    const got = medianOf(values);
    // Only the comparisons against it make bits: equal as numbers (-0 == 0) is what counts.
    if (got !== want) t.fail(`round ${round}: ${got} against ${want}`);
  }
  t.pass();
});

if (write) test.after.always(() => writeFileSync(EXPECTED, JSON.stringify(expected, null, 1) + '\n'));
