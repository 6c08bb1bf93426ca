import test from 'ava';
import { readFileSync } from 'node:fs';
import { dctHash } from '../../src/hashing/phash.ts';
import { hammingDistance, hashSegments, hashToBigInt, segmentNeighbours } from '../../src/hashing/hamming.ts';

const VECTORS = new URL('../fixtures/hash-vectors/', import.meta.url).pathname;
const expected = new Map(
  readFileSync(VECTORS + 'expected.txt', 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' ') as [string, string]),
);
const want = (file: string): string => expected.get(file) ?? 'missing from expected.txt: ' + file;

test('dctHash of the grey-32x32 formula pixels matches the vector (32x32 needs no resize)', (t) => {
  const px = new Uint8Array(32 * 32);
  for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) px[y * 32 + x] = (7 * x + 3 * y + 5 * ((x * y) % 11)) % 256;
  t.is(dctHash(px), want('grey-32x32.png'));
});

test('dctHash is sensitive to orientation: the transposed image hashes differently', (t) => {
  const px = new Uint8Array(32 * 32);
  for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) px[x * 32 + y] = (7 * x + 3 * y + 5 * ((x * y) % 11)) % 256;
  t.not(dctHash(px), want('grey-32x32.png'));
});

test('dctHash rejects input that is not 32x32 single-band', (t) => {
  t.throws(() => dctHash(new Uint8Array(32 * 32 * 3)), { instanceOf: RangeError });
});

const A = '0'.repeat(64);
const B = '1'.repeat(64);
const C = '1010' + '0'.repeat(56) + '0011';

test('hammingDistance counts differing bits', (t) => {
  t.is(hammingDistance(A, A), 0);
  t.is(hammingDistance(A, B), 64);
  t.is(hammingDistance(A, C), 4);
  t.is(hammingDistance(want('rgb-200x150.png'), want('rgb-100x75-q70.jpg')), 2);
  t.throws(() => hammingDistance(A, '01'), { instanceOf: TypeError });
  t.throws(() => hammingDistance(A, '2'.repeat(64)), { instanceOf: TypeError });
});

test('hashToBigInt reads the first character as the most significant bit', (t) => {
  t.is(hashToBigInt(A), 0n);
  t.is(hashToBigInt(B), 2n ** 64n - 1n);
  t.is(hashToBigInt('1' + '0'.repeat(63)), 2n ** 63n);
  t.is(hashToBigInt(C), (0b1010n << 60n) | 0b11n);
});

test('hashSegments splits into four 16-bit substrings in order', (t) => {
  const h = want('rgba-120x90.png');
  const segs = hashSegments(h);
  t.deepEqual(segs, [h.slice(0, 16), h.slice(16, 32), h.slice(32, 48), h.slice(48)]);
  t.is(segs.join(''), h);
});

const dist16 = (a: string, b: string) => [...a].filter((c, i) => c !== b[i]).length;

test('segmentNeighbours(…, 2) lists the 137 distinct strings within distance 2', (t) => {
  const seg = '1100101000111101';
  const all = segmentNeighbours(seg, 2);
  t.is(all.length, 137);
  t.is(new Set(all).size, 137);
  t.true(all.includes(seg));
  for (const n of all) {
    t.regex(n, /^[01]{16}$/);
    t.true(dist16(seg, n) <= 2);
  }
  t.deepEqual(segmentNeighbours(seg, 0), [seg]);
  t.is(new Set(segmentNeighbours(seg, 1)).size, 17);
  t.is(new Set(segmentNeighbours('0'.repeat(16), 16)).size, 65536);
  t.throws(() => segmentNeighbours('101', 1), { instanceOf: TypeError });
  t.throws(() => segmentNeighbours(seg, -1), { instanceOf: RangeError });
});
