import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { AppError } from '../../src/errors.ts';
import { createHashPool } from '../../src/hashing/pool.ts';

const VECTORS = new URL('../fixtures/hash-vectors/', import.meta.url).pathname;
const expected = new Map(
  readFileSync(VECTORS + 'expected.txt', 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' ') as [string, string]),
);
const want = (file: string): string => expected.get(file) ?? 'missing from expected.txt: ' + file;

const pool = createHashPool({ workers: 2 });
const dir = mkdtempSync(join(tmpdir(), 'imgpost-hash-'));
// Start the worker threads (tsx + sharp load) before the timed tests run.
test.before(async () => {
  await pool.analyse(VECTORS + 'grey-32x32.png');
});
test.after.always(async () => {
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function put(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Raw pixels from a per-pixel formula, channels interleaved, row-major. */
function pixels(width: number, height: number, channels: 1 | 2 | 3 | 4, f: (x: number, y: number) => number[]): Buffer {
  const buf = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++)
      buf.set(
        f(x, y).map((v) => v % 256),
        (y * width + x) * channels,
      );
  }
  return buf;
}

for (const [file, hash] of expected) {
  test(`vector ${file} hashes as expected through the pool`, async (t) => {
    const info = await pool.analyse(VECTORS + file);
    t.is(info.hash, hash);
  });
}

test('EXIF orientation is applied: dimensions are as displayed', async (t) => {
  const info = await pool.analyse(VECTORS + 'rgb-200x150-exif6.jpg');
  t.like(info, { format: 'jpeg', mime: 'image/jpeg', ext: 'jpg', width: 200, height: 150, pages: 1 });
});

test('grey-32x32.png regenerated from its formula hashes to the vector', async (t) => {
  const raw = pixels(32, 32, 1, (x, y) => [7 * x + 3 * y + 5 * ((x * y) % 11)]);
  const png = await sharp(raw, { raw: { width: 32, height: 32, channels: 1 } })
    .png()
    .toBuffer();
  const info = await pool.analyse(put('grey.png', png));
  t.like(info, { format: 'png', mime: 'image/png', ext: 'png', width: 32, height: 32, pages: 1 });
  t.is(info.hash, want('grey-32x32.png'));
});

test('rgb-200x150.png regenerated from its formula hashes to the vector', async (t) => {
  const raw = pixels(200, 150, 3, (x, y) => [5 * x + y, x * y, 255 - x + 3 * y]);
  const png = await sharp(raw, { raw: { width: 200, height: 150, channels: 3 } })
    .png()
    .toBuffer();
  t.is((await pool.analyse(put('rgb.png', png))).hash, want('rgb-200x150.png'));
});

test('rgba-120x90.png regenerated from its formula hashes to the vector', async (t) => {
  const raw = pixels(120, 90, 4, (x, y) => [3 * x, 7 * y, 2 * (x + y), 2 * x + y]);
  const png = await sharp(raw, { raw: { width: 120, height: 90, channels: 4 } })
    .png()
    .toBuffer();
  t.is((await pool.analyse(put('rgba.png', png))).hash, want('rgba-120x90.png'));
});

test('the real format comes from the bytes, not the file name; webp and avif are recognised', async (t) => {
  const src = sharp(VECTORS + 'rgb-200x150.png');
  t.like(await pool.analyse(put('actually-png.jpg', readFileSync(VECTORS + 'rgb-200x150.png'))), {
    format: 'png',
    ext: 'png',
  });
  t.like(await pool.analyse(put('a.webp', await src.clone().webp().toBuffer())), {
    format: 'webp',
    mime: 'image/webp',
    width: 200,
  });
  t.like(await pool.analyse(put('a.avif', await src.clone().avif().toBuffer())), {
    format: 'avif',
    mime: 'image/avif',
    ext: 'avif',
    height: 150,
  });
});

/** Three 64x48 frames of a few flat colours, so GIF's palette reproduces them exactly. */
const FW = 64;
const FH = 48;
const frame = (p: number) =>
  pixels(FW, FH, 3, (x, y) => {
    const on = ((x >> (3 + p)) + (y >> (2 + p))) % 2 === 0;
    return on ? [250 - 60 * p, 40 * p, 128] : [10, 200 - 50 * p, 30 + 70 * p];
  });
const frames = [0, 1, 2].map(frame);
const animation = () =>
  sharp(Buffer.concat(frames), { raw: { width: FW, height: FH * 3, channels: 3, pageHeight: FH } });
const still = (p: number) =>
  sharp(frames[p], { raw: { width: FW, height: FH, channels: 3 } })
    .png()
    .toBuffer();

test('an animated GIF hashes as its first frame', async (t) => {
  const info = await pool.analyse(
    put(
      'anim.gif',
      await animation()
        .gif({ delay: [100, 100, 100] })
        .toBuffer(),
    ),
  );
  t.like(info, { format: 'gif', width: FW, height: FH, pages: 3 });
  const first = await pool.analyse(put('first.png', await still(0)));
  const second = await pool.analyse(put('second.png', await still(1)));
  t.is(info.hash, first.hash);
  t.not(info.hash, second.hash); // the frames really differ, so this is not a coincidence
});

test('an animated WebP hashes as its first frame', async (t) => {
  const info = await pool.analyse(put('anim.webp', await animation().webp({ lossless: true }).toBuffer()));
  t.like(info, { format: 'webp', width: FW, height: FH, pages: 3 });
  t.is(info.hash, (await pool.analyse(put('first2.png', await still(0)))).hash);
});

/** A valid PNG signature + IHDR declaring a huge greyscale image, with almost no pixel data. */
function pngBomb(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth; colour type 0 (grey), compression/filter/interlace 0
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const jpeg = readFileSync(VECTORS + 'rgb-100x75-q70.jpg');
const rejects: [string, () => Buffer | string, RegExp][] = [
  [
    'an SVG',
    () =>
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100"/></svg>',
    /svg/,
  ],
  ['a text file', () => 'hello, this is not an image\n', /not an accepted image format/],
  ['an empty file', () => Buffer.alloc(0), /empty/],
  ['a truncated JPEG', () => jpeg.subarray(0, jpeg.length >> 1), /truncated|corrupt/],
  ['a 30000x30000 PNG bomb', () => pngBomb(30000, 30000), /megapixels/],
  ['a TIFF', () => Buffer.from('49492a0008000000', 'hex'), /tiff/],
];
for (const [what, bytes, message] of rejects) {
  test(`${what} is rejected as a validation error, quickly`, async (t) => {
    const body = bytes();
    if (what.includes('bomb')) t.true(body.length < 200);
    const started = performance.now();
    const err = await t.throwsAsync(pool.analyse(put(what.replaceAll(' ', '-'), body)), { instanceOf: AppError });
    // Far below what decoding would take: the limits engage before any pixel is decoded.
    t.true(performance.now() - started < 10_000);
    t.is(err!.code, 'validation');
    t.regex(err!.message, message);
    t.like((err!.details as unknown[])[0], { path: ['image'], message: err!.message });
  });
}

test('a missing file is a server error, not a validation error', async (t) => {
  const err = await t.throwsAsync(pool.analyse(join(dir, 'nope.png')));
  t.false(err instanceof AppError);
});

test('a full queue sheds load with an unavailable error', async (t) => {
  const small = createHashPool({ workers: 1, maxQueue: 1 });
  try {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => small.analyse(VECTORS + 'rgb-200x150.png')),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    t.true(refused.length >= 1);
    for (const r of refused) t.like(r.reason, { code: 'unavailable' });
    t.true(results.some((r) => r.status === 'fulfilled'));
  } finally {
    await small.destroy();
  }
});
