import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { Random } from '../../tools/seed/random.ts';

export interface BenchImage {
  path: string;
  format: 'jpeg' | 'png';
  bytes: number;
}

const SIDE = 1000; // 1 megapixel

/** Sensor-like noise in [-16, 15], shared by every image (each starts at a different offset). */
let noise: Int8Array | undefined;
function noiseField(): Int8Array {
  if (noise) return noise;
  noise = new Int8Array(SIDE * SIDE * 3 + 65_536);
  let x = 0x9e3779b9;
  for (let i = 0; i < noise.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    noise[i] = (x & 31) - 16;
  }
  return noise;
}

/**
 * A photo-like 1-megapixel picture: a smooth colour field (a coarse random grid, upscaled with a
 * cubic kernel) plus sensor-like noise. Flat synthetic images would compress to almost nothing and
 * decode unrealistically fast; pure noise would be unrealistically slow. Deterministic per seed, and
 * different seeds give different perceptual hashes.
 */
async function pixels(seed: number): Promise<Buffer> {
  const rnd = new Random(seed);
  const G = 9; // grid points per side
  const grid = Buffer.from(Array.from({ length: G * G * 3 }, () => rnd.int(0, 255)));
  const field = await sharp(grid, { raw: { width: G, height: G, channels: 3 } })
    .resize(SIDE, SIDE, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
  const n = noiseField();
  const offset = rnd.int(0, 65_535);
  for (let i = 0; i < field.length; i++) {
    const v = field[i] + n[offset + i];
    field[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return field;
}

/** Writes `jpegs` JPEGs (quality 85) and `pngs` PNGs into `dir`; the same seeds give the same files. */
export async function generateImages(dir: string, jpegs: number, pngs: number, seedBase = 7000): Promise<BenchImage[]> {
  fs.mkdirSync(dir, { recursive: true });
  const out: BenchImage[] = [];
  for (let i = 0; i < jpegs + pngs; i++) {
    const format = i < jpegs ? 'jpeg' : 'png';
    const img = sharp(await pixels(seedBase + i), { raw: { width: SIDE, height: SIDE, channels: 3 } });
    const buf =
      format === 'jpeg'
        ? await img.jpeg({ quality: 85 }).toBuffer()
        : await img.png({ compressionLevel: 6 }).toBuffer();
    const file = path.join(dir, `bench-${String(i).padStart(3, '0')}.${format === 'jpeg' ? 'jpg' : 'png'}`);
    fs.writeFileSync(file, buf);
    out.push({ path: file, format, bytes: buf.length });
  }
  return out;
}
