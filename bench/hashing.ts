import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { THUMBNAIL_SIZES } from '../src/kernel/media-names.ts';
import { createHashPool } from '../src/hashing/pool.ts';
import { originalPhash } from './anchors/sharp-phash-original.ts';
import type { BenchImage } from './lib/images.ts';
import { closedLoop } from './lib/http-load.ts';
import { repeated, type Repeated } from './lib/stats.ts';
import { isMain, numberArg, parseCli } from './lib/cli.ts';

/**
 * Hashing throughput (images/s) on the generated 1-megapixel JPEGs and PNGs, three ways, each with
 * two calls in flight (the box has two cores):
 *  - ours: the piscina pool with two workers (createHashPool().analyse(path)), which also sniffs the
 *    format, reads the metadata and validates the image before hashing;
 *  - the original's path: sharp-phash 2.x per call on the main thread (bench/anchors);
 *  - the floor: sharp decode + greyscale + 32x32 resize alone, on libuv's threadpool, no DCT.
 * plus ours followed by the robust descriptor of docs/decisions.md §16 on its own (`pool.robust(path)`: the
 * backfill's and a query's path, a decode of its own), and the pipeline each upload runs on the
 * pool: the hash and the thumbnails (`pool.thumbnails`, both sizes, WebP), without and with the
 * descriptor, which a new post gets from its small thumbnail's decode (src/robust/raster.ts).
 * That last pair is the descriptor's honest cost per post; from it, the hash's throughput with the
 * descriptor's added cost (1 / (1/ours + 1/with - 1/without)), the hash-against-hash figure.
 * Repetitions are interleaved (floor, original, ours, ours + robust, floor, ...) so drift in the
 * box's load hits all of them alike.
 *
 *   npx tsx bench/hashing.ts [reps=3] [passes=2]   # alone, on 12 JPEGs and 4 PNGs of 1 MP
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
  /** ours, then the robust descriptor of the same image (docs/decisions.md §16) */
  oursWithRobust?: Repeated;
  /** oursWithRobust against ours: the descriptor with a decode of its own (backfill, queries) */
  withRobustVsOurs?: number;
  /** ours plus what the descriptor adds to an upload's thumbnails task, as img/s */
  oursWithSharedRobust?: number;
  /** oursWithSharedRobust against ours (the goal: at least 0.7) */
  withSharedRobustVsOurs?: number;
  /** the pool work of an upload: hash, then both thumbnails */
  pipeline?: Repeated;
  /** the same, the thumbnails task also making the robust descriptor (what an upload runs) */
  pipelineWithRobust?: Repeated;
  /** pipelineWithRobust against pipeline */
  pipelineWithRobustVsPipeline?: number;
  oursVsFloor: number;
  oursVsOriginal: number;
  /** ours and the original produce the same hash for every image */
  hashesAgree: boolean;
}

async function throughput(count: number, concurrency: number, task: (i: number) => Promise<unknown>): Promise<number> {
  const r = await closedLoop({
    concurrency,
    durationMs: 10 * 60_000,
    maxRequests: count,
    task: async (i) => void (await task(i)),
  });
  if (r.errors > 0) throw new Error(`hashing failed: ${r.firstError}`);
  return r.rps;
}

export async function benchHashing(images: BenchImage[], opts: HashingOptions): Promise<HashingResult> {
  const concurrency = opts.concurrency ?? 2;
  const pool = createHashPool({ workers: 2 });
  const thumbDir = mkdtempSync(join(tmpdir(), 'hashing-thumbs-'));
  try {
    const at = (i: number) => images[i % images.length].path;
    const floor = async (i: number) =>
      sharp(await readFile(at(i)))
        .greyscale()
        .resize(32, 32, { fit: 'fill' })
        .raw()
        .toBuffer();
    const original = async (i: number) => originalPhash(await readFile(at(i)));
    const ours = (i: number) => pool.analyse(at(i));
    const withRobust = async (i: number) => {
      await pool.analyse(at(i));
      return pool.robust(at(i), 'urgent');
    };
    const pipeline = (descriptor: boolean) => async (i: number) => {
      await pool.analyse(at(i));
      return pool.thumbnails(
        at(i),
        THUMBNAIL_SIZES.map((size) => ({ size, path: join(thumbDir, `${i % 4}.${size}.webp`) })),
        'urgent',
        { descriptor },
      );
    };
    const upload = pipeline(false);
    const uploadWithRobust = pipeline(true);

    // Warm-up: worker start-up, JIT, the page cache.
    let hashesAgree = true;
    for (let i = 0; i < images.length; i++) {
      await floor(i);
      const [a, b] = await Promise.all([original(i), ours(i)]);
      if (a !== b.hash) hashesAgree = false;
      await uploadWithRobust(i);
    }

    const count = images.length * opts.passes;
    const runs = {
      floor: [] as number[],
      original: [] as number[],
      ours: [] as number[],
      withRobust: [] as number[],
      upload: [] as number[],
      uploadWithRobust: [] as number[],
    };
    for (let r = 0; r < opts.reps; r++) {
      runs.floor.push(await throughput(count, concurrency, floor));
      runs.original.push(await throughput(count, concurrency, original));
      runs.ours.push(await throughput(count, concurrency, ours));
      runs.withRobust.push(await throughput(count, concurrency, withRobust));
      runs.upload.push(await throughput(count, concurrency, upload));
      runs.uploadWithRobust.push(await throughput(count, concurrency, uploadWithRobust));
    }
    const jpegs = images.filter((i) => i.format === 'jpeg');
    const pngs = images.filter((i) => i.format === 'png');
    const meanKiB = (list: BenchImage[]) =>
      list.length ? list.reduce((s, i) => s + i.bytes, 0) / list.length / 1024 : 0;
    const result = {
      ours: repeated(runs.ours),
      original: repeated(runs.original),
      floor: repeated(runs.floor),
      oursWithRobust: repeated(runs.withRobust),
      pipeline: repeated(runs.upload),
      pipelineWithRobust: repeated(runs.uploadWithRobust),
    };
    // Seconds per image add up: the hash's, plus what the descriptor adds to the thumbnails task.
    const oursWithSharedRobust =
      1 / (1 / result.ours.median + 1 / result.pipelineWithRobust.median - 1 / result.pipeline.median);
    return {
      images: { jpeg: jpegs.length, png: pngs.length, meanJpegKiB: meanKiB(jpegs), meanPngKiB: meanKiB(pngs) },
      concurrency,
      perRep: count,
      ...result,
      withRobustVsOurs: result.oursWithRobust.median / result.ours.median,
      oursWithSharedRobust,
      withSharedRobustVsOurs: oursWithSharedRobust / result.ours.median,
      pipelineWithRobustVsPipeline: result.pipelineWithRobust.median / result.pipeline.median,
      oursVsFloor: result.ours.median / result.floor.median,
      oursVsOriginal: result.ours.median / result.original.median,
      hashesAgree,
    };
  } finally {
    await pool.destroy();
    rmSync(thumbDir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { positionals: args } = parseCli({
    usage: 'Usage: npx tsx bench/hashing.ts [REPS=3] [PASSES=2]   (12 JPEG + 4 PNG images, pool of 2)\n',
    positionals: true,
  });
  const { generateImages } = await import('./lib/images.ts');
  const { tempDir } = await import('./lib/env.ts');
  const dir = tempDir('hashing');
  try {
    const r = await benchHashing(await generateImages(dir, 12, 4), {
      reps: numberArg(args[0], 3),
      passes: numberArg(args[1], 2),
    });
    const f = (x: Repeated) => `${x.median.toFixed(1)} img/s`;
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    process.stdout.write(
      `| hashing, pool of 2 | ours ${f(r.ours)} | ours + the descriptor's cost on an upload ${r.oursWithSharedRobust!.toFixed(1)} img/s = ${(r.withSharedRobustVsOurs! * 100).toFixed(0)} % | ` +
        `ours + the descriptor with its own decode ${f(r.oursWithRobust!)} = ${(r.withRobustVsOurs! * 100).toFixed(0)} % | ` +
        `upload pipeline (hash + thumbnails) ${f(r.pipeline!)}, with the descriptor ${f(r.pipelineWithRobust!)} = ${(r.pipelineWithRobustVsPipeline! * 100).toFixed(0)} % | floor ${f(r.floor)} | original ${f(r.original)} |\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
