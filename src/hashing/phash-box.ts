/**
 * The 64-bit DCT hash of src/hashing/phash.ts over a box of a grey raster (area-averaged to 32x32).
 * Used by the "trim then pHash" candidate; not bit-identical to the stored hash of the whole image,
 * which sharp's resize kernel produces.
 */
import { dctHash } from './phash.ts';
import { downsample, type Box, type Integral } from '../robust/grey.ts';

export function phashOfBox(I: Integral, box: Box): string {
  const grid = downsample(I, box, 32);
  const bytes = new Uint8Array(32 * 32);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.round(grid[i]);
  return dctHash(bytes);
}
