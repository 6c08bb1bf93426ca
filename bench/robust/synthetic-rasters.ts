/**
 * Seeded grey rasters that photographs rarely are (ties, flat areas, degenerate sizes), for the
 * robust descriptor's bit-exactness checks (test/hashing/robust-descriptor-exact.test.ts and
 * bench/robust/descriptor-exact.ts): deterministic, so expected values can be stored.
 */
import type { Grey } from '../../src/robust/grey.ts';

export function syntheticRasters(): [string, Grey][] {
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const out: [string, Grey][] = [];
  const shapes: Record<string, (x: number, y: number, w: number, h: number) => number> = {
    noise: () => rnd() * 256,
    flat: () => 117,
    gradient: (x, y, w, h) => ((x * 255) / Math.max(1, w - 1)) * 0.6 + ((y * 255) / Math.max(1, h - 1)) * 0.4,
    checker: (x, y) => (((x >> 3) + (y >> 3)) % 2 ? 230 : 20),
    framed: (x, y, w, h) => (x < w / 8 || y < h / 8 || x >= w - w / 8 || y >= h - h / 8 ? 0 : 60 + rnd() * 140),
    stripes: (x) => (x % 2 ? 255 : 0),
  };
  for (const [w, h] of [
    [128, 128],
    [128, 85],
    [37, 128],
    [65, 63],
    [3, 2],
    [1, 1],
    [128, 1],
    [2, 128],
  ]) {
    for (const [name, f] of Object.entries(shapes)) {
      const pixels = new Uint8Array(w * h);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) pixels[y * w + x] = Math.max(0, Math.min(255, Math.round(f(x, y, w, h))));
      out.push([`${name}-${w}x${h}`, { width: w, height: h, pixels }]);
    }
  }
  return out;
}
