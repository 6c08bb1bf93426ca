import test from 'ava';
import sharp from 'sharp';
import { dihedralHashes, INVERSE, TRANSFORMS, transformGrey, type Transform } from '../../src/hashing/dihedral.ts';
import { dctHash } from '../../src/hashing/phash.ts';

const N = 32;
const grey = Uint8Array.from({ length: N * N }, (_, i) => (i * 7919 + ((i * i) % 251)) % 256);

/**
 * The same symmetry done by sharp (flop = mirror left-right, rotate = clockwise), in separate pipelines so the order is
 * ours.
 */
async function bySharp(px: Uint8Array, t: Transform): Promise<Uint8Array> {
  const raw = { raw: { width: N, height: N, channels: 1 as const } };
  let buf = Buffer.from(px);
  if (t === 'mirror' || t.startsWith('mirrorRotate'))
    buf = await sharp(buf, raw).flop().toColourspace('b-w').raw().toBuffer();
  const angle = Number(/(\d+)$/.exec(t)?.[1] ?? 0);
  if (angle) buf = await sharp(buf, raw).rotate(angle).toColourspace('b-w').raw().toBuffer();
  return new Uint8Array(buf);
}

test('each named symmetry of the 32x32 matrix is exactly what sharp does to the pixels', async (t) => {
  for (const name of TRANSFORMS) t.deepEqual(transformGrey(grey, name), await bySharp(grey, name), name);
});

test('the eight symmetries are distinct and INVERSE undoes each', (t) => {
  const seen = new Set(TRANSFORMS.map((name) => Buffer.from(transformGrey(grey, name)).toString('hex')));
  t.is(seen.size, 8);
  for (const name of TRANSFORMS) t.deepEqual(transformGrey(transformGrey(grey, name), INVERSE[name]), grey, name);
});

test('dihedralHashes: `none` is the plain hash; under name T, the hash of the original as seen from T(original)', (t) => {
  const hashes = dihedralHashes(grey, dctHash);
  t.is(hashes.none, dctHash(grey));
  for (const name of TRANSFORMS) t.is(dihedralHashes(transformGrey(grey, name), dctHash)[name], dctHash(grey), name);
});

test('transformGrey rejects anything but 32x32 single-band', (t) => {
  t.throws(() => transformGrey(new Uint8Array(10), 'mirror'), { instanceOf: RangeError });
});
