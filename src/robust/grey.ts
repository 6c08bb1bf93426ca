/**
 * A greyscale raster as the robust hashes read it: one byte per pixel, row-major, plus a summed-area
 * table so any rectangle's mean costs four lookups. raster.ts makes the bytes with sharp.
 */

/** Long side of the raster the robust descriptor is computed on (raster.ts downsizes to this). */
export const BASE = 128;

/**
 * The size the picture is fitted to before that (raster.ts): the small thumbnail's, which
 * src/kernel/media-names.ts takes from here, so a thumbnails task's decode serves the descriptor too.
 * Changing it changes every descriptor (a format bump).
 */
export const DESCRIPTOR_SOURCE = 320;

export interface Grey {
  width: number;
  height: number;
  /** width * height bytes, index y * width + x */
  pixels: Uint8Array;
}

/** An axis-aligned rectangle in pixels, half-open: [x, x + w) x [y, y + h). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Integral {
  width: number;
  height: number;
  /** (width + 1) * (height + 1) sums, sat[(y) * (width + 1) + x] = sum of pixels above-left of (x, y) */
  sat: Float64Array;
}

export function integral(g: Grey): Integral {
  const { width, height, pixels } = g;
  if (pixels.length !== width * height)
    throw new RangeError(`grey raster needs ${width * height} bytes, got ${pixels.length}`);
  const W = width + 1;
  const sat = new Float64Array(W * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += pixels[y * width + x];
      sat[(y + 1) * W + x + 1] = sat[y * W + x + 1] + row;
    }
  }
  return { width, height, sat };
}

/**
 * Mean over the real-valued rectangle [x0, x1) x [y0, y1), pixels counted by their overlap (so a
 * 64x64 cell grid over any box is an exact area average, whatever the box's size).
 */
export function areaMean(I: Integral, x0: number, y0: number, x1: number, y1: number): number {
  const area = (x1 - x0) * (y1 - y0);
  if (area <= 0) return 0;
  return (
    (fractionalSum(I, x1, y1) - fractionalSum(I, x0, y1) - fractionalSum(I, x1, y0) + fractionalSum(I, x0, y0)) / area
  );
}

/** Sum over [0, x) x [0, y) for real x, y, bilinear in the integral image. */
function fractionalSum(I: Integral, x: number, y: number): number {
  const W = I.width + 1;
  const xi = Math.min(Math.floor(x), I.width - 1);
  const yi = Math.min(Math.floor(y), I.height - 1);
  const fx = x - xi;
  const fy = y - yi;
  const s00 = I.sat[yi * W + xi];
  const s10 = I.sat[yi * W + xi + 1];
  const s01 = I.sat[(yi + 1) * W + xi];
  const s11 = I.sat[(yi + 1) * W + xi + 1];
  return s00 * (1 - fx) * (1 - fy) + s10 * fx * (1 - fy) + s01 * (1 - fx) * fy + s11 * fx * fy;
}

/**
 * The box's area-averaged n x n grid of means, row-major. Separable: the summed-area table is
 * interpolated at the n + 1 column edges on the rows the row edges fall between, then at the n + 1
 * row edges, so a grid costs about (box height + n) * n operations whatever the box.
 */
export function downsample(I: Integral, box: Box, n: number): Float64Array {
  return downsampleInto(I, box, n, new Float64Array(n * n));
}

// Scratch for downsampleInto, grown on demand: a descriptor resamples 21 boxes of one picture, and
// allocating (and zeroing) these for each was a visible part of its time.
let cx = new Int32Array(0);
let fx = new Float64Array(0);
let rowEdge = new Float64Array(0);
let S = new Float64Array(0);

/**
 * downsample() into out (n * n). Every value comes from the same operations in the same order as
 * the first implementation (stored descriptors depend on it); the only change is that rows of the
 * table no row edge falls next to are not interpolated.
 */
export function downsampleInto(I: Integral, box: Box, n: number, out: Float64Array): Float64Array {
  const W = I.width + 1;
  const m = n + 1;
  if (cx.length < m) {
    cx = new Int32Array(m);
    fx = new Float64Array(m);
    S = new Float64Array(m * m);
  }
  if (rowEdge.length < (I.height + 1) * m) rowEdge = new Float64Array((I.height + 1) * m);
  // locals, not the module's bindings, inside the loops: V8 then keeps them in registers
  const sat = I.sat,
    cxs = cx,
    fxs = fx,
    edges = rowEdge,
    s = S;
  const { x: bx, y: by, w: bw, h: bh } = box;
  const width = I.width,
    height = I.height;
  // column edges: index and weight of the SAT column to the left
  for (let k = 0; k < m; k++) {
    const x = Math.min(Math.max(bx + (bw * k) / n, 0), width);
    const xi = Math.min(Math.floor(x), width - 1);
    cxs[k] = xi;
    fxs[k] = x - xi;
  }
  // row edge l and the SAT row above it; the SAT rows the row edges interpolate between: [first, last]
  const edgeY = (l: number) => Math.min(Math.max(by + (bh * l) / n, 0), height);
  const rowAbove = (y: number) => Math.min(Math.floor(y), height - 1);
  const top = rowAbove(edgeY(0));
  const bottom = rowAbove(edgeY(n));
  const first = Math.min(top, bottom);
  const last = Math.max(top, bottom) + 1;
  // edges[(r - first) * m + k] = SAT at (x = edge k, y = r)
  for (let r = first; r <= last; r++) {
    const base = r * W;
    const o = (r - first) * m;
    for (let k = 0; k < m; k++) {
      const a = sat[base + cxs[k]];
      edges[o + k] = a + (sat[base + cxs[k] + 1] - a) * fxs[k];
    }
  }
  // s[l * m + k] = SAT at (edge k, row edge l)
  for (let l = 0; l < m; l++) {
    const y = edgeY(l);
    const yi = rowAbove(y);
    const fy = y - yi;
    const o0 = (yi - first) * m;
    const o1 = o0 + m;
    for (let k = 0; k < m; k++) {
      const a = edges[o0 + k];
      s[l * m + k] = a + (edges[o1 + k] - a) * fy;
    }
  }
  const area = (bw / n) * (bh / n);
  if (area <= 0) return out.fill(0, 0, n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      out[j * n + i] = (s[(j + 1) * m + i + 1] - s[j * m + i + 1] - s[(j + 1) * m + i] + s[j * m + i]) / area;
    }
  }
  return out;
}
