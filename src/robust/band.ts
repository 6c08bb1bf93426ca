/**
 * A caption band: a strip added above or below a picture in one near-white or near-black colour,
 * with text in it (a meme caption). The trim (trim.ts) peels the band's clean rows from the edge but
 * stops at the first text row, so a captioned copy trims to (text rows + picture) while its original
 * trims to the picture: none of the fixed windows lines up when the picture is dark and sparse
 * (sky frames). `captionBand` finds such a band and returns the picture beside it, trimmed within
 * that part the way trimBorders trims a whole raster; the descriptor hashes that box as one more
 * window (descriptor.ts), so a picture with no band found costs and stores nothing more.
 *
 * A band: from one edge (top or bottom), the first line is frame-like (trim.ts `frameLike`) in a
 * band colour (white: mean ≥ 215, black: mean ≤ 40); the run goes on while a line is either clean
 * (frame-like, same colour) or a text line (at least INK_ROW of its pixels in the band colour and
 * some pixels far from it); the band ends at its last clean line, after at least one text line, and
 * covers MIN_BAND..MAX_BAND of the height. No text line: a plain border, which the trim already peels.
 */
import type { Box, Grey } from './grey.ts';
import { frameLike, NEAR_BLACK as BLACK, NEAR_WHITE as WHITE, trimBorders } from './trim.ts';

export const MIN_BAND = 0.05;
export const MAX_BAND = 0.35;
/** a text line's share of pixels in the band colour (bold caption text at 128 px leaves ≥ 0.3 white) */
const INK_ROW = 0.15;
/** lines skipped after the band: the resampled edge between band and picture blends the two */
const SEAM = 1;

interface Line {
  min: number;
  max: number;
  mean: number;
  white: number;
  black: number;
}

function row(g: Grey, y: number): Line {
  const { width, pixels } = g;
  let min = 255,
    max = 0,
    sum = 0,
    white = 0,
    black = 0;
  for (let x = 0, at = y * width; x < width; x++, at++) {
    const v = pixels[at];
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    if (v >= WHITE) white++;
    else if (v <= BLACK) black++;
  }
  return { min, max, mean: sum / width, white: white / width, black: black / width };
}

/** Rows [0, end) of a band at the top (step 1) or rows [end, height) at the bottom (step -1), or -1. */
function bandEnd(g: Grey, fromTop: boolean): number {
  const h = g.height;
  const start = fromTop ? 0 : h - 1;
  const step = fromTop ? 1 : -1;
  const first = row(g, start);
  if (!frameLike(first.max - first.min, first.mean)) return -1;
  const white = first.mean >= WHITE;
  if (!white && first.mean > BLACK) return -1; // flat in another colour: not a caption band
  const limit = Math.floor(h * MAX_BAND);
  let lastClean = 0,
    text = false,
    textBeforeClean = false;
  for (let k = 0; k < limit; k++) {
    const l = row(g, start + step * k);
    const clean = frameLike(l.max - l.min, l.mean) && (white ? l.mean >= WHITE : l.mean <= BLACK);
    if (clean) {
      lastClean = k;
      if (text) textBeforeClean = true;
    } else if ((white ? l.white : l.black) >= INK_ROW) text = true;
    else break;
  }
  const size = lastClean + 1;
  if (!textBeforeClean || size < h * MIN_BAND) return -1;
  return fromTop ? size : h - size;
}

/** The rows [y0, y1) of g as a raster of their own. */
function rows(g: Grey, y0: number, y1: number): Grey {
  return { width: g.width, height: y1 - y0, pixels: g.pixels.subarray(y0 * g.width, y1 * g.width) };
}

/** The picture beside a caption band at the top or bottom (the top one first), trimmed; null when there is none. */
export function captionBand(g: Grey): Box | null {
  for (const fromTop of [true, false]) {
    const end = bandEnd(g, fromTop);
    if (end < 0) continue;
    const [y0, y1] = fromTop ? [end + SEAM, g.height] : [0, end - SEAM];
    const b = trimBorders(rows(g, y0, y1));
    return { x: b.x, y: b.y + y0, w: b.w, h: b.h };
  }
  return null;
}
