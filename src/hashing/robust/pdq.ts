/**
 * PDQ-style 256-bit hash of a box of a grey raster, after the description of Meta's PDQ
 * (facebook/ThreatExchange, pdq/README and hashing.pdf): 64x64 luminance grid, the 16x16
 * lowest-frequency DCT-II coefficients without the DC row and column, one bit per coefficient above
 * their median, and a quality score from the grid's gradients (0..100; PDQ's own advice is to
 * distrust hashes under 50). Differences from the reference, on purpose: the 64x64 grid is an exact
 * area average of the box (from a summed-area table, so many boxes of one picture cost little)
 * instead of the Jarosz tent filter, and the grey is libvips' b-w instead of Rec. 601 luma. So the
 * bits are not interchangeable with other PDQ implementations; distances behave the same way.
 */
import { downsample, type Box, type Integral } from './grey.ts';

const N = 64;
const K = 16;

/** D[i][j] = sqrt(2/64) cos(pi / 128 (i + 1)(2j + 1)), i < 16, j < 64 */
const D = new Float64Array(K * N);
for (let i = 0; i < K; i++) for (let j = 0; j < N; j++) D[i * N + j] = Math.sqrt(2 / N) * Math.cos((Math.PI / (2 * N)) * (i + 1) * (2 * j + 1));

export interface Pdq {
  /** 256 bits as 8 unsigned 32-bit words, bit k of the coefficient order (row-major 16x16) at word k >> 5, bit k & 31 */
  bits: Uint32Array;
  quality: number;
}

export function pdqOfGrid(grid: Float64Array, withQuality = true): Pdq {
  if (grid.length !== N * N) throw new RangeError(`pdq needs a ${N}x${N} grid`);
  const quality = withQuality ? qualityOf(grid) : -1;
  return finish(grid, quality);
}

/** PDQ's quality: sum of |neighbour differences| in percent of full scale, /90, capped at 100. */
function qualityOf(grid: Float64Array): number {
  let gradient = 0;
  for (let y = 0; y < N; y++) {
    for (let x = 0; x < N; x++) {
      const v = grid[y * N + x];
      if (y + 1 < N) gradient += Math.floor(Math.abs(grid[(y + 1) * N + x] - v) * 100 / 255);
      if (x + 1 < N) gradient += Math.floor(Math.abs(grid[y * N + x + 1] - v) * 100 / 255);
    }
  }
  return Math.min(100, Math.floor(gradient / 90));
}

// Scratch buffers, reused by every call (a worker hashes one picture at a time, synchronously).
const H = N / 2;
const plus = new Float64Array(H * N);
const minus = new Float64Array(H * N);
const T = new Float64Array(K * N);
const B = new Float64Array(K * K);
const sorted = new Float64Array(K * K);

function finish(grid: Float64Array, quality: number): Pdq {
  // B = D A D^T: first T = D A (16x64), then B = T D^T (16x16). D[i][63 - y] = (-1)^(i+1) D[i][y],
  // so each stage folds the input in half first (sums for even i + 1, differences for odd).
  for (let y = 0; y < H; y++) {
    const top = y * N;
    const bottom = (N - 1 - y) * N;
    for (let x = 0; x < N; x++) {
      const a = grid[top + x];
      const b = grid[bottom + x];
      plus[top + x] = a + b;
      minus[top + x] = a - b;
    }
  }
  // Loops ordered so the inner one walks memory contiguously; each T[i][x] still receives its terms
  // in ascending y, one product at a time, so the sums (and the bits) are exactly those of the
  // straightforward order (no fused multiply-add in JavaScript).
  T.fill(0);
  for (let i = 0; i < K; i++) {
    const src = (i & 1) === 1 ? plus : minus; // i + 1 even: symmetric
    const row = i * N;
    for (let y = 0; y < H; y++) {
      const d = D[row + y];
      const at = y * N;
      for (let x = 0; x < N; x++) T[row + x] += d * src[at + x];
    }
  }
  for (let i = 0; i < K; i++) {
    const row = i * N;
    for (let j = 0; j < K; j++) {
      const dj = j * N;
      let s = 0;
      if ((j & 1) === 1) for (let x = 0; x < H; x++) s += (T[row + x] + T[row + N - 1 - x]) * D[dj + x];
      else for (let x = 0; x < H; x++) s += (T[row + x] - T[row + N - 1 - x]) * D[dj + x];
      B[i * K + j] = s;
    }
  }
  sorted.set(B);
  sorted.sort();
  const median = (sorted[127] + sorted[128]) / 2;
  const bits = new Uint32Array(8);
  for (let k = 0; k < K * K; k++) if (B[k] > median) bits[k >> 5] |= 1 << (k & 31);
  return { bits, quality };
}

/** quality is -1 unless asked for (windows do not need it: the picture's full hash carries it) */
export function pdq(I: Integral, box: Box, withQuality = true): Pdq {
  return pdqOfGrid(downsample(I, box, N), withQuality);
}

function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function hamming256(a: Uint32Array, b: Uint32Array, ao = 0, bo = 0): number {
  let d = 0;
  for (let i = 0; i < 8; i++) d += popcount((a[ao + i] ^ b[bo + i]) >>> 0);
  return d;
}

export function toHex(bits: Uint32Array): string {
  let s = '';
  for (let i = 0; i < bits.length; i++) s += bits[i].toString(16).padStart(8, '0');
  return s;
}

export function fromHex(hex: string): Uint32Array {
  if (!/^[0-9a-f]*$/.test(hex) || hex.length % 8 !== 0) throw new TypeError('hex words expected');
  const out = new Uint32Array(hex.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16) >>> 0;
  return out;
}
