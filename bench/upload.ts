import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '../src/roles/wiring.ts';
import { createHashPool } from '../src/hashing/pool.ts';
import type { BenchImage } from './lib/images.ts';
import { closedLoop, HttpError } from './lib/http-load.ts';
import { appendAll, repeated, summarize, type LatencySummary, type Repeated } from './lib/stats.ts';

/**
 * Upload throughput end to end: 8 concurrent clients POST a 1-megapixel JPEG to /api/post/ and then
 * read the post back (GET /api/post/:id must answer it: read-after-write). Next to it, in the same
 * run, hashing alone: the same JPEGs through a two-worker pool with 8 in flight. Repetitions alternate
 * hashing and uploading. The image set is small and reused, so uploads send force=1 (the
 * near-duplicate check still runs, then is overridden, as on any forced upload). Hashing plus
 * thumbnails is measured beside them as a diagnostic.
 */
export interface UploadOptions {
  reps: number;
  repMs: number;
  concurrency: number;
}

export interface UploadResult {
  uploads: Repeated;
  hashing: Repeated;
  /**
   * Diagnostic: the pool work one upload needs when it also makes thumbnails (analyse, then the
   * thumbnails task, as PostService.create does), same JPEGs and clients. Absent when the pool has
   * no thumbnails task.
   */
  hashingAndThumbnails?: Repeated;
  ratio: number;
  requests: number;
  errors: number;
  firstError?: string;
  latency: LatencySummary;
  concurrency: number;
}

export async function benchUpload(
  services: Core,
  url: string,
  images: BenchImage[],
  opts: UploadOptions,
): Promise<UploadResult> {
  const jpegs = images.filter((i) => i.format === 'jpeg');
  const bytes = jpegs.map((i) => new Uint8Array(fs.readFileSync(i.path)));
  const user = await services.accounts.createUser({
    name: `bench${crypto.randomBytes(4).toString('hex')}`,
    password: 'bench password 123',
    permission: 6,
  });
  const headers = { 'X-Access-Key': user.accessKey };

  const upload = async (i: number) => {
    const form = new FormData();
    form.append('image', new Blob([bytes[i % bytes.length]], { type: 'image/jpeg' }), 'upload.jpg');
    form.append(
      'metadata',
      new Blob([JSON.stringify({ text: `bench upload ${i}`, tags: ['bench', `b${i % 50}`], rating: 'none' })], {
        type: 'application/json',
      }),
    );
    form.append('force', '1');
    const res = await fetch(`${url}/api/post/`, { method: 'POST', headers, body: form });
    const text = await res.text();
    if (res.status !== 201) throw new HttpError(`upload: ${res.status} ${text.slice(0, 200)}`);
    const id = (JSON.parse(text) as { id: string }).id;
    const back = await fetch(`${url}/api/post/${id}`);
    const got = (await back.json()) as { id?: string };
    if (back.status !== 200 || got.id !== id)
      throw new HttpError(`read-after-write: GET /api/post/${id} answered ${back.status}`);
  };

  const pool = createHashPool({ workers: 2 });
  const thumbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-bench-thumbs-'));
  try {
    const hash = async (i: number) => void (await pool.analyse(jpegs[i % jpegs.length].path));
    const sizes = await thumbnailSizes();
    // Looked up at run time: the thumbnails task is newer than this suite and may change shape.
    const thumbnails = (
      pool as Partial<{ thumbnails(path: string, outputs: { size: number; path: string }[]): Promise<unknown> }>
    ).thumbnails?.bind(pool);
    const hashAndThumbs =
      thumbnails && sizes.length > 0
        ? async (i: number) => {
            const file = jpegs[i % jpegs.length].path;
            await pool.analyse(file);
            const outputs = sizes.map((size) => ({ size, path: path.join(thumbDir, `${i}.${size}.webp`) }));
            await thumbnails(file, outputs);
            for (const o of outputs) fs.rmSync(o.path, { force: true });
          }
        : undefined;
    // Warm-up both paths (worker start-up, JIT, connections).
    await closedLoop({ concurrency: opts.concurrency, durationMs: 2000, maxRequests: 2 * jpegs.length, task: hash });
    await closedLoop({
      concurrency: opts.concurrency,
      durationMs: 3000,
      maxRequests: 2 * opts.concurrency,
      task: upload,
    });

    const uploads: number[] = [];
    const hashing: number[] = [];
    const withThumbs: number[] = [];
    const latencies: number[] = [];
    let requests = 0;
    let errors = 0;
    let firstError: string | undefined;
    for (let r = 0; r < opts.reps; r++) {
      const h = await closedLoop({
        concurrency: opts.concurrency,
        durationMs: opts.repMs,
        maxRequests: 1_000_000,
        task: hash,
      });
      if (h.errors > 0) throw new Error(`hashing failed: ${h.firstError}`);
      hashing.push(h.rps);
      if (hashAndThumbs) {
        const t = await closedLoop({
          concurrency: opts.concurrency,
          durationMs: opts.repMs,
          maxRequests: 1_000_000,
          task: hashAndThumbs,
        });
        if (t.errors > 0) throw new Error(`thumbnails failed: ${t.firstError}`);
        withThumbs.push(t.rps);
      }
      const u = await closedLoop({
        concurrency: opts.concurrency,
        durationMs: opts.repMs,
        maxRequests: 1_000_000,
        task: (i) => upload(r * 100_000 + i),
      });
      uploads.push(((u.requests - u.errors) / u.ms) * 1000);
      appendAll(latencies, u.latencies);
      requests += u.requests;
      errors += u.errors;
      firstError ??= u.firstError;
    }
    const result = {
      uploads: repeated(uploads),
      hashing: repeated(hashing),
      hashingAndThumbnails: withThumbs.length ? repeated(withThumbs) : undefined,
    };
    return {
      ...result,
      ratio: result.uploads.median / result.hashing.median,
      requests,
      errors,
      firstError,
      latency: summarize(latencies),
      concurrency: opts.concurrency,
    };
  } finally {
    await pool.destroy();
    fs.rmSync(thumbDir, { recursive: true, force: true });
  }
}

/** The thumbnail sizes uploads make, if this tree makes thumbnails at all. */
async function thumbnailSizes(): Promise<number[]> {
  // variables, so the suite still compiles without them; the second is where older trees kept the sizes
  for (const module of ['../src/kernel/media-names.ts', '../src/thumbnails/sizes.ts']) {
    try {
      const sizes = ((await import(module)) as { THUMBNAIL_SIZES?: readonly number[] }).THUMBNAIL_SIZES;
      return Array.isArray(sizes) ? [...sizes] : [];
    } catch {
      // not in this tree: try the next place
    }
  }
  return [];
}
