/**
 * The robust descriptor of a picture: the borders trimmed, then a PDQ-style hash of the trimmed
 * picture ("full") and of WINDOWS sub-boxes of it (the picture less 5, 10, 15 or 20 % on one side,
 * or less that fraction centred). Two pictures are the same when
 *   - a's full hash is near one of b's hashes (a is b cropped: a matches one of b's windows), or
 *   - one of a's window hashes is near b's full hash (b is a cropped, or a is b plus a band/caption).
 * So only full-against-window and full-against-full pairs are compared (1 + 2 * WINDOWS.length),
 * never window against window, which keeps the false-match rate and the index small.
 * A picture with a caption band (band.ts) carries one more window after the fixed ones: the
 * picture beside the band, trimmed (a captioned copy's window then lines up with its original's full
 * hash, which no fixed window does when the band's text stops the trim). It is compared as the
 * other windows are; a picture without a band has none, so the count of hashes varies (1 + WINDOWS.length, or one
 * more). Beside them, the untrimmed picture's cells (cells.ts), for copies with part of the picture
 * covered (rule.ts compares them).
 */
import { hamming256, pdqInto, toHex, fromHex } from './pdq.ts';
import { integral, type Box, type Grey } from './grey.ts';
import { captionBand } from './band.ts';
import { cellHashes, type Cells } from './cells.ts';
import { trimBorders } from './trim.ts';

export interface WindowSpec {
  name: string;
  /** fractions of the trimmed box cut from each side */
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const sides = (f: number): WindowSpec[] => [
  { name: `left${f * 100}`, left: f, top: 0, right: 0, bottom: 0 },
  { name: `top${f * 100}`, left: 0, top: f, right: 0, bottom: 0 },
  { name: `right${f * 100}`, left: 0, top: 0, right: f, bottom: 0 },
  { name: `bottom${f * 100}`, left: 0, top: 0, right: 0, bottom: f },
  { name: `centre${f * 100}`, left: f / 2, top: f / 2, right: f / 2, bottom: f / 2 },
];
const bands = (f: number): WindowSpec[] => [
  { name: `top${f * 100}`, left: 0, top: f, right: 0, bottom: 0 },
  { name: `bottom${f * 100}`, left: 0, top: 0, right: 0, bottom: f },
];

/** Window sets measured by bench/robust/evaluate.ts (each a prefix-free list; names are unique within a set). */
export const WINDOW_SETS: Record<string, WindowSpec[]> = {
  w10: [...sides(0.1), ...sides(0.2)],
  w20: [0.05, 0.1, 0.15, 0.2].flatMap(sides),
  w32: [...[0.05, 0.1, 0.15, 0.2].flatMap(sides), ...[0.025, 0.075, 0.125, 0.175, 0.225, 0.25].flatMap(bands)],
};

/** The windows a descriptor carries (the set chosen by measurement, see bench/robust/RESULTS.md). */
export const WINDOWS: WindowSpec[] = WINDOW_SETS.w20;

/** Below this PDQ quality a picture is too flat to say anything about: it gets no robust matches. */
export const MIN_QUALITY = 50;

export interface RobustDescriptor {
  /** the picture without its uniform borders, in the grey raster's pixels */
  trimmed: Box;
  /** raster size the boxes refer to */
  width: number;
  height: number;
  quality: number;
  /** the picture beside a caption band, trimmed (band.ts), or null: no band found */
  band: Box | null;
  /**
   * (1 + WINDOWS.length + (band ? 1 : 0)) * 8 words: the full hash, one per window in WINDOWS order, then the band's
   * window
   */
  hashes: Uint32Array;
  /** the untrimmed raster's cells (cells.ts); absent when not asked for */
  cells?: Cells;
}

export function subBox(b: Box, s: WindowSpec): Box {
  return {
    x: b.x + b.w * s.left,
    y: b.y + b.h * s.top,
    w: b.w * (1 - s.left - s.right),
    h: b.h * (1 - s.top - s.bottom),
  };
}

/**
 * options.band / options.cells false: no caption band window, no cells (measured by the evaluation as the descriptors
 * before them)
 */
export function robustDescriptor(
  g: Grey,
  options: { windows?: boolean | WindowSpec[]; band?: boolean; cells?: boolean } = {},
): RobustDescriptor {
  const trimmed = trimBorders(g);
  const I = integral(g);
  const specs = options.windows === false ? [] : Array.isArray(options.windows) ? options.windows : WINDOWS;
  const band = options.band === false ? null : captionBand(g);
  const hashes = new Uint32Array(8 * (1 + specs.length + (band ? 1 : 0)));
  const quality = pdqInto(I, trimmed, true, hashes, 0);
  for (let i = 0; i < specs.length; i++) pdqInto(I, subBox(trimmed, specs[i]), false, hashes, 8 * (i + 1));
  if (band) pdqInto(I, band, false, hashes, 8 * (1 + specs.length));
  return {
    trimmed,
    band,
    width: g.width,
    height: g.height,
    quality,
    hashes,
    ...(options.cells === false ? {} : { cells: cellHashes(I) }),
  };
}

export interface RobustMatch {
  distance: number;
  /**
   * 'similar' (full against full), 'crop' (a window of the other picture), 'border' (trimmed), 'overlay' (a window of
   * this one: band/caption)
   */
  kind: 'similar' | 'crop' | 'border' | 'overlay';
  /** 0..1, 1 = identical bits */
  score: number;
}

/** Best pair of a and b within threshold (full/full, a.full/b.window, a.window/b.full), else null. */
export function matchDescriptors(
  a: Pick<RobustDescriptor, 'hashes' | 'quality'>,
  b: Pick<RobustDescriptor, 'hashes' | 'quality'>,
  threshold: number,
): RobustMatch | null {
  if (a.quality < MIN_QUALITY || b.quality < MIN_QUALITY) return null;
  let best = hamming256(a.hashes, b.hashes, 0, 0);
  let kind: RobustMatch['kind'] = 'similar';
  const na = a.hashes.length / 8;
  const nb = b.hashes.length / 8;
  for (let j = 1; j < nb; j++) {
    const d = hamming256(a.hashes, b.hashes, 0, 8 * j);
    if (d < best) {
      best = d;
      kind = 'crop';
    }
  }
  for (let i = 1; i < na; i++) {
    const d = hamming256(a.hashes, b.hashes, 8 * i, 0);
    if (d < best) {
      best = d;
      kind = 'overlay';
    }
  }
  if (best > threshold) return null;
  return { distance: best, kind, score: 1 - best / 256 };
}

export function descriptorToHex(d: RobustDescriptor): string[] {
  const out: string[] = [];
  for (let i = 0; i < d.hashes.length; i += 8) out.push(toHex(d.hashes.subarray(i, i + 8)));
  return out;
}

export function descriptorFromHex(hex: string[]): Uint32Array {
  const out = new Uint32Array(hex.length * 8);
  hex.forEach((h, i) => out.set(fromHex(h), i * 8));
  return out;
}
