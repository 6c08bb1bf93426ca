/**
 * Uniform borders: a frame, a letterbox or pillarbox added around a picture. Each side is peeled
 * while its outermost line is frame-like (near black or white and flat within TOLERANCE, or any
 * colour and flat within STRICT: a foggy sky is not peeled, a letterbox is), so a frame
 * added around a picture whose own edge is flat (sky, studio backdrop) peels to the same box as the
 * picture alone. A side flat for more than MAX_FRACTION is content, not a border: it is kept whole;
 * so is a picture that is flat all over.
 */
import type { Box, Grey } from './grey.ts';

const TOLERANCE = 24;
const MAX_FRACTION = 0.5;
const EDGE = 2;
/**
 * A line that can be a frame: near black or near white and flat within TOLERANCE, or any colour and flat within STRICT.
 */
const STRICT = 1;
/** a line's mean at or below this is near black, at or above NEAR_WHITE near white (band.ts uses both too) */
export const NEAR_BLACK = 40;
export const NEAR_WHITE = 215;
export const frameLike = (range: number, mean: number) =>
  range <= STRICT || (range <= TOLERANCE && (mean <= NEAR_BLACK || mean >= NEAR_WHITE));

export function trimBorders(g: Grey): Box {
  const { width, height, pixels } = g;
  const line = (horizontal: boolean, k: number, from: number, to: number): [number, number, number] => {
    let min = 255,
      max = 0,
      sum = 0;
    for (let t = from; t < to; t++) {
      const v = horizontal ? pixels[k * width + t] : pixels[t * width + k];
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
    }
    return [min, max, sum / Math.max(1, to - from)];
  };
  let top = 0,
    bottom = height,
    left = 0,
    right = width;
  // Peel while flat, within the other two sides as peeled so far; again until nothing moves, so a
  // frame is peeled before a flat edge of the picture inside it (rows across a frame's sides are not flat).
  const peel = (horizontal: boolean, start: number, step: number, limit: number, from: number, to: number): number => {
    // the resampled edge of a peeled frame blends into the picture: skip EDGE pixels at that end
    const size = horizontal ? width : height;
    if (from > 0) from = Math.min(from + EDGE, to);
    if (to < size) to = Math.max(to - EDGE, from);
    let k = start;
    while (Math.abs(k - start) < limit) {
      const [min, max, mean] = line(horizontal, k, from, to);
      if (!frameLike(max - min, mean)) return k;
      k += step;
    }
    return -1; // flat beyond the limit: content
  };
  const capH = Math.floor(height * MAX_FRACTION);
  const capW = Math.floor(width * MAX_FRACTION);
  const done = { top: false, bottom: false, left: false, right: false };
  for (let round = 0; round < 4; round++) {
    const before = [top, bottom, left, right].join();
    if (!done.top) {
      const k = peel(true, top, 1, capH - top, left, right);
      if (k < 0) done.top = true;
      else top = k;
    }
    if (!done.bottom) {
      const k = peel(true, bottom - 1, -1, capH - (height - bottom), left, right);
      if (k < 0) done.bottom = true;
      else bottom = k + 1;
    }
    if (!done.left) {
      const k = peel(false, left, 1, capW - left, top, bottom);
      if (k < 0) done.left = true;
      else left = k;
    }
    if (!done.right) {
      const k = peel(false, right - 1, -1, capW - (width - right), top, bottom);
      if (k < 0) done.right = true;
      else right = k + 1;
    }
    if ([top, bottom, left, right].join() === before) break;
  }
  const w = right - left;
  const h = bottom - top;
  if (w < width * 0.1 || h < height * 0.1) return { x: 0, y: 0, w: width, h: height };
  return { x: left, y: top, w, h };
}
