/**
 * Anchor: the original service's hashing path, i.e. the npm package sharp-phash 2.x called once per
 * request on the main thread. It is reproduced here (it cannot be a dependency) with the same work
 * per call:
 *  - sharp: greyscale, resize to 32x32 with fit 'fill', rotate() (EXIF orientation), raw bytes;
 *  - the signal copied into an array of 32 arrays (column-major, s[x][y]);
 *  - a naive 2-D DCT-II of all 32x32 coefficients (four nested loops, 32^4 multiply-adds), of which
 *    only 8x8 are used, over arrays of arrays;
 *  - the 64-bit fingerprint built as a '0'/'1' string.
 * The package's published 2.x source builds its cosine and scale tables once, at module load, so
 * this does too: recomputing Math.cos inside the loops would make the anchor slower than the real
 * package and flatter ours.
 * Its hashes must equal src/hashing/phash.ts's (same images, no EXIF): the suite checks that.
 */
import sharp from 'sharp';

const SIZE = 32;
const LOW = 8;

// table[k][n] = cos((2k + 1) / 2N * n * pi): rows are the sample index, columns the frequency.
const cosTable: number[][] = [];
for (let k = 0; k < SIZE; k++) {
  const row: number[] = [];
  for (let n = 0; n < SIZE; n++) row.push(Math.cos(((2 * k + 1) / (2.0 * SIZE)) * n * Math.PI));
  cosTable.push(row);
}
const scale: number[] = Array.from({ length: SIZE }, (_, i) => (i === 0 ? 1 / Math.sqrt(2.0) : 1));

function fullDct(f: number[][]): number[][] {
  const out: number[][] = [];
  for (let u = 0; u < SIZE; u++) {
    const row: number[] = [];
    for (let v = 0; v < SIZE; v++) {
      let sum = 0;
      for (let i = 0; i < SIZE; i++) {
        for (let j = 0; j < SIZE; j++) sum += cosTable[i][u] * cosTable[j][v] * f[i][j];
      }
      row.push((sum * (scale[u] * scale[v])) / 4);
    }
    out.push(row);
  }
  return out;
}

export async function originalPhash(image: Buffer | string): Promise<string> {
  const data = await sharp(image).greyscale().resize(SIZE, SIZE, { fit: 'fill' }).rotate().raw().toBuffer();
  const signal: number[][] = [];
  for (let x = 0; x < SIZE; x++) {
    const column: number[] = [];
    for (let y = 0; y < SIZE; y++) column.push(data[SIZE * y + x]);
    signal.push(column);
  }
  const dct = fullDct(signal);
  let total = 0;
  for (let x = 1; x <= LOW; x++) for (let y = 1; y <= LOW; y++) total += dct[x][y];
  const avg = total / (LOW * LOW);
  let bits = '';
  for (let x = 1; x <= LOW; x++) for (let y = 1; y <= LOW; y++) bits += dct[x][y] > avg ? '1' : '0';
  return bits;
}

/** sharp-phash's distance(): characters that differ between two '0'/'1' strings. */
export function originalDistance(a: string, b: string): number {
  let count = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) count++;
  return count;
}
