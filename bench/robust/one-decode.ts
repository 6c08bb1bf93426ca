/**
 * The plan for the descriptor's throughput goal (issue 25), measured before building it: compute the
 * descriptor from the decode the thumbnails already do instead of decoding the image a second time.
 * The second way below was built (issue 25, seventh pass); this now runs the served task for it.
 *
 *   npx tsx bench/robust/one-decode.ts [reps=3] [passes=2]
 *
 * 1. Throughput on bench/hashing.ts's images (12 JPEG + 4 PNG of 1 MP), two in flight, interleaved:
 *    - thumbnails: the worker's `thumbnails` task body (both sizes, WebP), without the descriptor;
 *    - + robust task: then the worker's `robust` task body (a decode of its own): before the seventh pass;
 *    - one decode: a prototype that decodes once to the largest thumbnail's size, makes both
 *      thumbnails and the 128-px grey raster from that raster, then the descriptor;
 *    - small thumbnail's decode: the large thumbnail keeps its own pipeline and only the small one's
 *      decode is shared: the 320-px raster is encoded to WebP and resized to the 128-px grey raster,
 *      then the descriptor (prototyped here first; now the worker's `thumbnails` with `descriptor`).
 *    The functions run on the main thread (libuv's pool), not in the piscina workers: the ratios
 *    between them are what this measures.
 * 2. Drift: per image of the evaluation set (originals and their JPEG q20 copies), the full-hash
 *    distance between the `robust` task's descriptor and each way's, and whether the rule still
 *    matches them. Measured before the seventh pass against the raster of its time (a 128-px resize
 *    with a decode of its own); since then the `robust` task reads the same raster as the served way,
 *    whose distance must be 0.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { robustDescriptor } from '../../src/robust/descriptor.ts';
import { BASE } from '../../src/robust/grey.ts';
import { hamming256 } from '../../src/robust/pdq.ts';
import { robustMatch } from '../../src/robust/rule.ts';
import { THUMBNAIL_SIZES } from '../../src/kernel/media-names.ts';
import { robust, thumbnails } from '../../workers/hash-worker.ts';
import { tempDir } from '../lib/env.ts';
import { closedLoop } from '../lib/http-load.ts';
import { generateImages } from '../lib/images.ts';
import { repeated } from '../lib/stats.ts';
import { DERIVED, ORIGINALS } from './paths.ts';
import { headerOf, numberArg, parseCli } from '../lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const reps = numberArg(args[0], 3);
const passes = numberArg(args[1], 2);
const SHARP = { limitInputPixels: 100_000_000, failOn: 'none', autoOrient: true } as const;
const inside = { fit: 'inside', withoutEnlargement: true } as const;

/** The prototype: one decode for the thumbnails and the descriptor. */
async function oneDecode(path: string, outputs: { size: number; path: string }[]) {
  const buf = await readFile(path);
  const largest = Math.max(...outputs.map((o) => o.size), BASE);
  const { data, info } = await sharp(buf, SHARP)
    .resize(largest, largest, inside)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const made = await Promise.all(
    outputs.map((o) => sharp(data, raw).resize(o.size, o.size, inside).webp({ quality: 80, effort: 2 }).toFile(o.path)),
  );
  const g = await sharp(data, raw).greyscale().resize(BASE, BASE, inside).raw().toBuffer({ resolveWithObject: true });
  const d = robustDescriptor({
    width: g.info.width,
    height: g.info.height,
    pixels: new Uint8Array(g.data.buffer, g.data.byteOffset, g.data.length),
  });
  return { made, descriptor: { quality: d.quality, hashes: d.hashes } };
}

/** The served way (the second prototype): the worker's `thumbnails` task asked for the descriptor too. */
async function smallDecode(path: string, outputs: { size: number; path: string }[]) {
  const { made, descriptor } = await thumbnails({ path, outputs, descriptor: true });
  return { made, descriptor: descriptor! };
}

const dir = tempDir('one-decode');
const out = mkdtempSync(join(tmpdir(), 'one-decode-thumbs-'));
try {
  const images = await generateImages(dir, 12, 4);
  const at = (i: number) => images[i % images.length].path;
  const outputs = (i: number) => THUMBNAIL_SIZES.map((size) => ({ size, path: join(out, `${i % 4}.${size}.webp`) }));
  const variants: Record<string, (i: number) => Promise<unknown>> = {
    thumbnails: (i) => thumbnails({ path: at(i), outputs: outputs(i) }),
    'thumbnails + robust task (its own decode)': async (i) => {
      await thumbnails({ path: at(i), outputs: outputs(i) });
      return robust({ path: at(i) });
    },
    'one decode (prototype)': (i) => oneDecode(at(i), outputs(i)),
    "small thumbnail's decode (served)": (i) => smallDecode(at(i), outputs(i)),
  };
  for (let i = 0; i < images.length; i++) for (const f of Object.values(variants)) await f(i); // warm-up
  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = 0; r < reps; r++)
    for (const [name, f] of Object.entries(variants)) {
      const res = await closedLoop({
        concurrency: 2,
        durationMs: 600_000,
        maxRequests: images.length * passes,
        task: async (i) => void (await f(i)),
      });
      if (res.errors > 0) throw new Error(`${name}: ${res.firstError}`);
      runs[name].push(res.rps);
    }
  const base = repeated(runs.thumbnails).median;
  console.log(
    `| pool work per upload (main thread, 2 in flight, ${reps} x ${passes} passes over ${images.length} images) | img/s (median) | vs thumbnails alone |`,
  );
  console.log('| --- | --- | --- |');
  for (const [name, xs] of Object.entries(runs))
    console.log(
      `| ${name} | ${repeated(xs).median.toFixed(1)} | ${((100 * repeated(xs).median) / base).toFixed(0)} % |`,
    );

  // ---- drift of the descriptor on the evaluation set
  const files = [
    ...readdirSync(ORIGINALS).map((f) => join(ORIGINALS, f)),
    ...readdirSync(DERIVED)
      .filter((f) => f.includes('.jpeg20.'))
      .map((f) => join(DERIVED, f)),
  ].sort();
  const prototypes: [string, (f: string) => Promise<{ quality: number; hashes: Uint32Array }>][] = [
    [
      'one decode',
      async (f) =>
        (await oneDecode(f, [{ size: Math.max(...THUMBNAIL_SIZES), path: join(out, 'drift.webp') }])).descriptor,
    ],
    [
      "small thumbnail's decode",
      async (f) =>
        (
          await smallDecode(
            f,
            THUMBNAIL_SIZES.map((size) => ({ size, path: join(out, `drift.${size}.webp`) })),
          )
        ).descriptor,
    ],
  ];
  for (const [name, proto] of prototypes) {
    const dists: number[] = [];
    let unmatched = 0;
    for (const f of files) {
      const today = await robust({ path: f });
      const made = await proto(f);
      if (today.quality < 50 || made.quality < 50) continue;
      dists.push(hamming256(today.hashes, made.hashes, 0, 0));
      if (!robustMatch(today, made)) unmatched++;
    }
    dists.sort((a, b) => a - b);
    const q = (p: number) => dists[Math.min(dists.length - 1, Math.floor(p * dists.length))];
    console.log(
      `\n${name}: drift on ${dists.length} evaluation images (originals and JPEG q20 copies, quality ≥ 50): full-hash distance between the robust task's descriptor and this way's ` +
        `p50 ${q(0.5)}, p90 ${q(0.9)}, p99 ${q(0.99)}, max ${dists[dists.length - 1]} of 256 bits; pairs today's rule does not match: ${unmatched}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
}
