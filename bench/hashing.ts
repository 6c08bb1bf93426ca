import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { createHashPool } from '../src/hashing/pool.ts';
import { originalPhash } from './anchors/sharp-phash-original.ts';
import type { BenchImage } from './lib/images.ts';
import { closedLoop } from './lib/http-load.ts';
import { repeated, type Repeated } from './lib/stats.ts';

/**
 * Hashing throughput (images/s) on the generated 1-megapixel JPEGs and PNGs, three ways, each with
 * two calls in flight (the box has two cores):
 *  - ours: the piscina pool with two workers (createHashPool().analyse(path)), which also sniffs the
 *    format, reads the metadata and validates the image before hashing;
 *  - the original's path: sharp-phash 2.x per call on the main thread (bench/anchors);
 *  - the floor: sharp decode + greyscale + 32x32 resize alone, on libuv's threadpool, no DCT.
 * Repetitions are interleaved (floor, original, ours, floor, ...) so drift in the box's load hits
 * all three alike.
 */
export interface HashingOptions {
  reps: number;
  /** passes over the image set per repetition */
  passes: number;
  concurrency?: number;
}

export interface HashingResult {
  images: { jpeg: number; png: number; meanJpegKiB: number; meanPngKiB: number };
  concurrency: number;
  perRep: number;
  ours: Repeated;
  original: Repeated;
  floor: Repeated;
  oursVsFloor: number;
  oursVsOriginal: number;
  /** ours and the original produce the same hash for every image */
  hashesAgree: boolean;
}

async function throughput(count: number, concurrency: number, task: (i: number) => Promise<unknown>): Promise<number> {
  const r = await closedLoop({ concurrency, durationMs: 10 * 60_000, maxRequests: count, task: async (i) => void (await task(i)) });
  if (r.errors > 0) throw new Error(`hashing failed: ${r.firstError}`);
  return r.rps;
}

export async function benchHashing(images: BenchImage[], opts: HashingOptions): Promise<HashingResult> {
  const concurrency = opts.concurrency ?? 2;
  const pool = createHashPool({ workers: 2 });
  try {
    const at = (i: number) => images[i % images.length].path;
    const floor = async (i: number) =>
      sharp(await readFile(at(i))).greyscale().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
    const original = async (i: number) => originalPhash(await readFile(at(i)));
    const ours = (i: number) => pool.analyse(at(i));

    // Warm-up: worker start-up, JIT, the page cache.
    let hashesAgree = true;
    for (let i = 0; i < images.length; i++) {
      await floor(i);
      const [a, b] = await Promise.all([original(i), ours(i)]);
      if (a !== b.hash) hashesAgree = false;
    }

    const count = images.length * opts.passes;
    const runs = { floor: [] as number[], original: [] as number[], ours: [] as number[] };
    for (let r = 0; r < opts.reps; r++) {
      runs.floor.push(await throughput(count, concurrency, floor));
      runs.original.push(await throughput(count, concurrency, original));
      runs.ours.push(await throughput(count, concurrency, ours));
    }
    const jpegs = images.filter((i) => i.format === 'jpeg');
    const pngs = images.filter((i) => i.format === 'png');
    const meanKiB = (list: BenchImage[]) => (list.length ? list.reduce((s, i) => s + i.bytes, 0) / list.length / 1024 : 0);
    const result = { ours: repeated(runs.ours), original: repeated(runs.original), floor: repeated(runs.floor) };
    return {
      images: { jpeg: jpegs.length, png: pngs.length, meanJpegKiB: meanKiB(jpegs), meanPngKiB: meanKiB(pngs) },
      concurrency,
      perRep: count,
      ...result,
      oursVsFloor: result.ours.median / result.floor.median,
      oursVsOriginal: result.ours.median / result.original.median,
      hashesAgree,
    };
  } finally {
    await pool.destroy();
  }
}
