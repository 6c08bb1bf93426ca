/**
 * A greyscale raster as the robust hashes read it: one byte per pixel, row-major, plus a summed-area
 * table so any rectangle's mean costs four lookups. The hash worker produces the bytes with sharp
 * (`greyscale().resize(BASE, BASE, { fit: 'inside', withoutEnlargement: true }).raw()`).
 */

/** Long side of the raster the robust descriptor is computed on (the worker downsizes to this). */
export const BASE = 128;

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
  if (pixels.length !== width * height) throw new RangeError(`grey raster needs ${width * height} bytes, got ${pixels.length}`);
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
  return (fractionalSum(I, x1, y1) - fractionalSum(I, x0, y1) - fractionalSum(I, x1, y0) + fractionalSum(I, x0, y0)) / area;
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
 * interpolated at the n + 1 column edges on every row, then at the n + 1 row edges, so a grid costs
 * about (height + n) * n operations whatever the box.
 */
export function downsample(I: Integral, box: Box, n: number): Float64Array {
  const W = I.width + 1;
  const H = I.height + 1;
  const m = n + 1;
  // column edges: index and weight of the SAT column to the left
  const cx = new Int32Array(m);
  const fx = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const x = Math.min(Math.max(box.x + (box.w * k) / n, 0), I.width);
    const xi = Math.min(Math.floor(x), I.width - 1);
    cx[k] = xi;
    fx[k] = x - xi;
  }
  // rowEdge[r * m + k] = SAT at (x = edge k, y = r)
  const rowEdge = new Float64Array(H * m);
  for (let r = 0; r < H; r++) {
    const base = r * W;
    for (let k = 0; k < m; k++) {
      const a = I.sat[base + cx[k]];
      rowEdge[r * m + k] = a + (I.sat[base + cx[k] + 1] - a) * fx[k];
    }
  }
  // S[l * m + k] = SAT at (edge k, row edge l)
  const S = new Float64Array(m * m);
  for (let l = 0; l < m; l++) {
    const y = Math.min(Math.max(box.y + (box.h * l) / n, 0), I.height);
    const yi = Math.min(Math.floor(y), I.height - 1);
    const fy = y - yi;
    for (let k = 0; k < m; k++) {
      const a = rowEdge[yi * m + k];
      S[l * m + k] = a + (rowEdge[(yi + 1) * m + k] - a) * fy;
    }
  }
  const area = (box.w / n) * (box.h / n);
  const out = new Float64Array(n * n);
  if (area <= 0) return out;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      out[j * n + i] = (S[(j + 1) * m + i + 1] - S[j * m + i + 1] - S[(j + 1) * m + i] + S[j * m + i]) / area;
    }
  }
  return out;
}
