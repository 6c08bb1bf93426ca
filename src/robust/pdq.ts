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
import { downsampleInto, type Box, type Integral } from './grey.ts';

const N = 64;
const K = 16;

/** D[i][j] = sqrt(2/64) cos(pi / 128 (i + 1)(2j + 1)), i < 16, j < 64 */
const DCT = new Float64Array(K * N);
for (let i = 0; i < K; i++)
  for (let j = 0; j < N; j++) DCT[i * N + j] = Math.sqrt(2 / N) * Math.cos((Math.PI / (2 * N)) * (i + 1) * (2 * j + 1));

/**
 * PDQ's quality of an n x n grid: the sum of its neighbour differences in percent of full scale,
 * divided by `per`, capped at 100 (PDQ's own grid: n 64, per 90; the cells' (cells.ts): n 32, per 20).
 */
export function gradientQuality(grid: Float64Array, n: number, per: number): number {
  let gradient = 0;
  // (| 0 is Math.floor for these non-negative values, and cheaper)
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      const i = y * n + x;
      const v = grid[i];
      if (y + 1 < n) gradient += ((Math.abs(grid[i + n] - v) * 100) / 255) | 0;
      if (x + 1 < n) gradient += ((Math.abs(grid[i + 1] - v) * 100) / 255) | 0;
    }
  return Math.min(100, Math.floor(gradient / per));
}

// Scratch buffers, reused by every call (a worker hashes one picture at a time, synchronously).
const H = N / 2;
const PLUS = new Float64Array(H * N);
const MINUS = new Float64Array(H * N);
const T_ = new Float64Array(K * N);
const FOLD_PLUS = new Float64Array(K * H);
const FOLD_MINUS = new Float64Array(K * H);
const B_ = new Float64Array(K * K);
const scratch = new Float64Array(K * K);
const grid = new Float64Array(N * N);

/**
 * Stored descriptors must stay valid, so every coefficient is computed by exactly the floating-point
 * operations of the first implementation, in the same order (no fused multiply-add in JavaScript, so
 * equal operations give equal bits): T = D A (16x64) with each T[i][x] summed over ascending y from 0,
 * then B = T D^T with each B[i][j] summed over ascending x. What changed is only how the loops reach
 * memory: several outputs are summed at once in local variables (registers) instead of a
 * read-modify-write of T per product, and the folded rows of T are formed once instead of once per j.
 * D[i][63 - y] = (-1)^(i+1) D[i][y], so each stage folds its input in half first (sums for even
 * i + 1, differences for odd).
 */
function finish(grid: Float64Array, out: Uint32Array, at: number): void {
  // locals, not the module's bindings, inside the loops: V8 then keeps them in registers
  const D = DCT,
    plus = PLUS,
    minus = MINUS,
    T = T_,
    foldPlus = FOLD_PLUS,
    foldMinus = FOLD_MINUS,
    B = B_;
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
  // Four rows of D of one parity (they read the same folded half) times two columns: eight sums.
  for (let g = 0; g < 4; g++) {
    const i0 = (g & 1) + (g >> 1) * 8; // {0,2,4,6}, {1,3,5,7}, {8,...,14}, {9,...,15}
    const src = (i0 & 1) === 1 ? plus : minus; // i + 1 even: symmetric
    const r0 = i0 * N,
      r1 = r0 + 2 * N,
      r2 = r0 + 4 * N,
      r3 = r0 + 6 * N;
    for (let x = 0; x < N; x += 2) {
      let a0 = 0,
        a1 = 0,
        a2 = 0,
        a3 = 0,
        b0 = 0,
        b1 = 0,
        b2 = 0,
        b3 = 0;
      for (let y = 0; y < H; y++) {
        const s = src[y * N + x];
        const t = src[y * N + x + 1];
        const d0 = D[r0 + y],
          d1 = D[r1 + y],
          d2 = D[r2 + y],
          d3 = D[r3 + y];
        a0 += d0 * s;
        b0 += d0 * t;
        a1 += d1 * s;
        b1 += d1 * t;
        a2 += d2 * s;
        b2 += d2 * t;
        a3 += d3 * s;
        b3 += d3 * t;
      }
      T[r0 + x] = a0;
      T[r0 + x + 1] = b0;
      T[r1 + x] = a1;
      T[r1 + x + 1] = b1;
      T[r2 + x] = a2;
      T[r2 + x + 1] = b2;
      T[r3 + x] = a3;
      T[r3 + x + 1] = b3;
    }
  }
  for (let i = 0; i < K; i++) {
    const row = i * N;
    for (let x = 0; x < H; x++) {
      const a = T[row + x];
      const b = T[row + N - 1 - x];
      foldPlus[i * H + x] = a + b;
      foldMinus[i * H + x] = a - b;
    }
  }
  // B[i][j] for four j of one parity (one folded row) at a time.
  for (let i = 0; i < K; i++) {
    for (let g = 0; g < 4; g++) {
      const j0 = (g & 1) + (g >> 1) * 8;
      const src = (j0 & 1) === 1 ? foldPlus : foldMinus;
      const f0 = i * H,
        e0 = j0 * N,
        e1 = e0 + 2 * N,
        e2 = e0 + 4 * N,
        e3 = e0 + 6 * N;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let x = 0; x < H; x++) {
        const f = src[f0 + x];
        s0 += f * D[e0 + x];
        s1 += f * D[e1 + x];
        s2 += f * D[e2 + x];
        s3 += f * D[e3 + x];
      }
      const o = i * K + j0;
      B[o] = s0;
      B[o + 2] = s1;
      B[o + 4] = s2;
      B[o + 6] = s3;
    }
  }
  const median = medianOf(B);
  for (let w = 0; w < 8; w++) {
    let word = 0;
    for (let b = 0; b < 32; b++) if (B[w * 32 + b] > median) word |= 1 << b;
    out[at + w] = word;
  }
}

/**
 * (128th + 129th smallest) / 2 of the 256 coefficients, as sorting them gave, by selection: the two
 * values are the same numbers whichever way they are found (a -0 where the sort had +0, or back,
 * changes no comparison). A NaN (no real picture makes one) keeps the sort, which orders NaN last.
 */
export function medianOf(values: Float64Array): number {
  const a = scratch;
  a.set(values);
  const n = a.length;
  const k = n / 2 - 1;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(a[i])) {
      a.sort();
      return (a[k] + a[k + 1]) / 2;
    }
  }
  // Wirth's selection: afterwards a[0..k) <= a[k] <= a(k..n).
  let l = 0,
    m = n - 1;
  while (l < m) {
    const x = a[k];
    let i = l,
      j = m;
    do {
      while (a[i] < x) i++;
      while (x < a[j]) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    } while (i <= j);
    if (j < k) l = i;
    if (k < i) m = j;
  }
  let next = a[k + 1];
  for (let i = k + 2; i < n; i++) if (a[i] < next) next = a[i];
  return (a[k] + next) / 2;
}

/**
 * The box's hash written at out[at..at + 8), without allocating (a descriptor is 21 of them): 256
 * bits as 8 unsigned 32-bit words, bit k of the coefficient order (row-major 16x16) at word k >> 5,
 * bit k & 31. Returns the quality, or -1 unless asked for (windows do not need it: the full hash
 * carries it).
 */
export function pdqInto(I: Integral, box: Box, withQuality: boolean, out: Uint32Array, at: number): number {
  downsampleInto(I, box, N, grid);
  finish(grid, out, at);
  return withQuality ? gradientQuality(grid, N, 90) : -1;
}

/** bits set in a 32-bit word */
export function popcount(v: number): number {
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
