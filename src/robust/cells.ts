/**
 * The cell hashes of a robust descriptor (format 3): the whole raster, untrimmed, cut into a
 * GRID x GRID grid of cells, each with a 64-bit DCT hash and a quality. They answer the copy that
 * keeps the picture's geometry but covers part of it (a watermark, a logo, a sticker): its global
 * hashes move, its untouched cells do not. Two pictures match by their cells when at least
 * CELLS_NEEDED cells at the same places, each with quality ≥ CELL_QUALITY on both sides, are
 * within CELL_THRESHOLD bits (rule.ts).
 *
 * Why untrimmed: the trim follows content, and a watermark across a dark picture (a star field)
 * stops it elsewhere than on the original, which shifts every trimmed cell (watermark recall with
 * trimmed and untrimmed cells: bench/notes/robust.md, eighth pass). Borders and crops are the
 * whole-picture hashes' job.
 * Why a quality per cell: a flat cell (sky, a plain background) hashes to whatever its noise says,
 * and plain cells of unrelated pictures would agree; they are not counted and not indexed.
 * Parameters chosen on the evaluation set (docs/robust-near-duplicates.md, eighth pass).
 */
import { downsampleInto, type Integral } from './grey.ts';
import { gradientQuality, popcount } from './pdq.ts';

export const GRID = 4;
export const CELL_COUNT = GRID * GRID;
/** a cell's hash: 2 words, 64 bits */
export const CELL_WORDS = 2;
/** a cell below this quality (0..100) is not compared and not indexed */
export const CELL_QUALITY = 15;
/** bits (of 64) within which two cells agree */
export const CELL_THRESHOLD = 8;
/** agreeing cells for a match */
export const CELLS_NEEDED = 6;

export interface Cells {
  /** CELL_COUNT * CELL_WORDS words, cell k (row-major) at [2k, 2k + 2) */
  words: Uint32Array;
  /** per cell, 0..100 */
  quality: Uint8Array;
}

/** the grid each cell is averaged to */
const M = 32;
/** the quality's divisor (PDQ's 90 is for its 64x64 grid): a cell's quality, 0..100, on a comparable scale */
const QUALITY_PER = 20;
/** coefficients 1..L in each direction (the DC row and column left out) */
const L = 8;
/** COS[u * M + x] = cos(pi / 2M (u + 1)(2x + 1)) */
const COS = new Float64Array(L * M);
for (let u = 0; u < L; u++)
  for (let x = 0; x < M; x++) COS[u * M + x] = Math.cos((Math.PI / (2 * M)) * (u + 1) * (2 * x + 1));

// Scratch, reused by every call (a worker hashes one picture at a time, synchronously).
const grid = new Float64Array(M * M);
const H = M / 2;
const plus = new Float64Array(H * M);
const minus = new Float64Array(H * M);
const rows = new Float64Array(L * M);
const coeffs = new Float64Array(L * L);
const sorted = new Float64Array(L * L);

/** The cells of a raster of width x height whose summed-area table is I. */
export function cellHashes(I: Integral): Cells {
  const words = new Uint32Array(CELL_COUNT * CELL_WORDS);
  const quality = new Uint8Array(CELL_COUNT);
  const w = I.width / GRID;
  const h = I.height / GRID;
  for (let r = 0; r < GRID; r++)
    for (let c = 0; c < GRID; c++) {
      const k = r * GRID + c;
      downsampleInto(I, { x: c * w, y: r * h, w, h }, M, grid);
      quality[k] = gradientQuality(grid, M, QUALITY_PER);
      hashInto(words, k * CELL_WORDS);
    }
  return { words, quality };
}

/**
 * 64 bits: the 8x8 lowest non-DC DCT-II coefficients of the grid, one bit each above their median.
 * COS[u][M - 1 - y] = (-1)^(u + 1) COS[u][y], so each stage folds its input in half first (sums for
 * even u + 1, differences for odd) and walks rows contiguously: a third of the naive loops' time.
 */
function hashInto(out: Uint32Array, at: number): void {
  const g = grid,
    p = plus,
    m = minus,
    R = rows,
    C = COS;
  for (let y = 0; y < H; y++) {
    const top = y * M,
      bottom = (M - 1 - y) * M;
    for (let x = 0; x < M; x++) {
      p[top + x] = g[top + x] + g[bottom + x];
      m[top + x] = g[top + x] - g[bottom + x];
    }
  }
  R.fill(0);
  for (let u = 0; u < L; u++) {
    const src = u % 2 === 1 ? p : m; // u + 1 even: the sums
    const o = u * M;
    for (let y = 0; y < H; y++) {
      const c = C[o + y];
      const row = y * M;
      for (let x = 0; x < M; x++) R[o + x] += c * src[row + x];
    }
  }
  for (let u = 0; u < L; u++) {
    const o = u * M;
    for (let v = 0; v < L; v++) {
      const odd = v % 2 === 0; // v + 1 odd: the differences
      const cv = v * M;
      let s = 0;
      for (let x = 0; x < H; x++) s += C[cv + x] * (odd ? R[o + x] - R[o + M - 1 - x] : R[o + x] + R[o + M - 1 - x]);
      coeffs[u * L + v] = s;
    }
  }
  sorted.set(coeffs);
  sorted.sort();
  const median = (sorted[(L * L) / 2 - 1] + sorted[(L * L) / 2]) / 2;
  out[at] = 0;
  out[at + 1] = 0;
  for (let i = 0; i < L * L; i++) if (coeffs[i] > median) out[at + (i >> 5)] |= 1 << (i & 31);
}

/** whether cell k counts on both sides (indexed, compared) */
const counted = (a: Cells, b: Cells, k: number) => a.quality[k] >= CELL_QUALITY && b.quality[k] >= CELL_QUALITY;

/**
 * The cell match of a and b: the CELLS_NEEDED-th smallest distance among the counted cells, when
 * it is within CELL_THRESHOLD (at least CELLS_NEEDED cells agree), else null.
 */
export function cellDistance(a: Cells, b: Cells): number | null {
  const d: number[] = [];
  for (let k = 0; k < CELL_COUNT; k++) {
    if (!counted(a, b, k)) continue;
    const i = k * CELL_WORDS;
    d.push(popcount((a.words[i] ^ b.words[i]) >>> 0) + popcount((a.words[i + 1] ^ b.words[i + 1]) >>> 0));
  }
  if (d.length < CELLS_NEEDED) return null;
  d.sort((x, y) => x - y);
  return d[CELLS_NEEDED - 1] <= CELL_THRESHOLD ? d[CELLS_NEEDED - 1] : null;
}

/** The 16-bit segments of cell k (4 of them: each word's high half, then its low half). */
export function cellSegments(c: Cells, k: number): number[] {
  const a = c.words[k * CELL_WORDS],
    b = c.words[k * CELL_WORDS + 1];
  return [a >>> 16, a & 0xffff, b >>> 16, b & 0xffff];
}

/**
 * The index condition's share of the cells: the counted cells at which a and b have at least one
 * equal segment (the lookup's one `robust_cell` clause per counted cell of the query).
 */
export function sharedCells(a: Cells, b: Cells): number {
  let shared = 0;
  for (let k = 0; k < CELL_COUNT; k++) {
    if (!counted(a, b, k)) continue;
    const i = k * CELL_WORDS;
    const x = a.words[i] ^ b.words[i],
      y = a.words[i + 1] ^ b.words[i + 1];
    if (x >>> 16 === 0 || (x & 0xffff) === 0 || y >>> 16 === 0 || (y & 0xffff) === 0) shared++;
  }
  return shared;
}

/** The cells' index terms, `<cell><segment>:<hex>`, of the counted cells (quality ≥ CELL_QUALITY), per cell. */
export function cellTerms(c: Cells): string[][] {
  const out: string[][] = [];
  for (let k = 0; k < CELL_COUNT; k++) {
    if (c.quality[k] < CELL_QUALITY) continue;
    out.push(cellSegments(c, k).map((v, s) => `${k.toString(16)}${s}:${v.toString(16).padStart(4, '0')}`));
  }
  return out;
}
