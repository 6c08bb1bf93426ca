import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '../src/roles/wiring.ts';
import { createHashPool } from '../src/hashing/pool.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { reindexCorpus } from './lib/corpus.ts';
import { CpuTally, cpuWindow, elasticsearchPid } from './lib/cpu.ts';
import { tempDir } from './lib/env.ts';
import { generateImages, type BenchImage } from './lib/images.ts';
import { check, closedLoop } from './lib/http-load.ts';
import { HttpError } from './lib/requests.ts';
import { standalone } from './lib/standalone.ts';
import { appendAll, fmt, nowMs, repeated, summarize, type LatencySummary, type Repeated } from './lib/stats.ts';
import { numberArg, parseCli, runIfMain } from './lib/cli.ts';

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

/** What the server process and Elasticsearch spent per upload, and the thumbnails left behind. */
export interface UploadProcesses {
  /** the server process's pid (its CPU per upload) */
  serverPid?: number;
  esPid?: number;
  /** thumbnail jobs not done yet (the thumbnail_jobs table the server drains) */
  thumbnailBacklog?: () => number;
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
  /** milliseconds of CPU per upload during the upload windows, by process (self: the load generator) */
  cpuPerUploadMs?: { server: number; elasticsearch: number; loadGenerator: number };
  /**
   * Thumbnail jobs still queued when each upload window ended, and the seconds until none was left
   * (waited out before the next window, so a backlog never runs into the hashing anchor's window).
   */
  backlog?: { jobs: number[]; drainSeconds: number[]; drainedPerSecond: number };
}

export async function benchUpload(
  services: Core,
  url: string,
  images: BenchImage[],
  opts: UploadOptions,
  processes: UploadProcesses = {},
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
    const cpu = new CpuTally<'server' | 'elasticsearch'>();
    const backlogJobs: number[] = [];
    const drainSeconds: number[] = [];
    await drainThumbnails(processes); // the warm-up's
    for (let r = 0; r < opts.reps; r++) {
      const window = { concurrency: opts.concurrency, durationMs: opts.repMs, maxRequests: 1_000_000 };
      const h = check(await closedLoop({ ...window, task: hash }), 'hashing');
      hashing.push(h.rps);
      if (hashAndThumbs) {
        const t = check(await closedLoop({ ...window, task: hashAndThumbs }), 'thumbnails');
        withThumbs.push(t.rps);
      }
      const spent = cpuWindow({ server: processes.serverPid, elasticsearch: processes.esPid });
      const u = await closedLoop({ ...window, task: (i) => upload(r * 100_000 + i) });
      cpu.add(spent(), u.requests - u.errors);
      if (processes.thumbnailBacklog) {
        backlogJobs.push(processes.thumbnailBacklog());
        drainSeconds.push(await drainThumbnails(processes));
      }
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
      ...(processes.serverPid
        ? {
            cpuPerUploadMs: {
              server: cpu.perRequestMs('server'),
              elasticsearch: cpu.perRequestMs('elasticsearch'),
              loadGenerator: cpu.perRequestMs('self'),
            },
          }
        : {}),
      ...(backlogJobs.length
        ? {
            backlog: {
              jobs: backlogJobs,
              drainSeconds,
              drainedPerSecond: backlogJobs.reduce((a, b) => a + b, 0) / drainSeconds.reduce((a, b) => a + b, 0),
            },
          }
        : {}),
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

/** Waits until the server has no thumbnail job left (at most 10 minutes); the seconds it took. */
async function drainThumbnails(processes: UploadProcesses): Promise<number> {
  if (!processes.thumbnailBacklog) return 0;
  const t0 = nowMs();
  while (processes.thumbnailBacklog() > 0) {
    if (nowMs() - t0 > 10 * 60_000) throw new Error('thumbnail backlog not drained in 10 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  return (nowMs() - t0) / 1000;
}

const USAGE = `Usage: npx tsx bench/upload.ts [--posts N] [--reps N] [--rep-ms N] [--keep]

  --posts N     posts seeded (and indexed) before the uploads (default 100000)
  --reps N      alternating windows of hashing alone and uploads (default 5)
  --rep-ms N    length of each window in milliseconds (default 10000)
  --keep        leave the data directory in place
`;

/**
 * The upload figure on its own, on a seeded corpus (npm run bench measures it after the search
 * figures, at 100k and 1M posts). Also prints what the server process and Elasticsearch spent per
 * upload, and the thumbnail backlog each window left and how long it took to drain.
 */
async function main(): Promise<void> {
  const { values } = parseCli({
    usage: USAGE,
    options: {
      posts: { type: 'string' },
      reps: { type: 'string' },
      'rep-ms': { type: 'string' },
      keep: { type: 'boolean' },
    },
  });
  const posts = numberArg(values.posts, 100_000);
  const opts: UploadOptions = {
    reps: numberArg(values.reps, 5),
    repMs: numberArg(values['rep-ms'], 10_000),
    concurrency: 8,
  };
  const log = (line: string) =>
    process.stderr.write(`[bench upload ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  const imageDir = tempDir('upload-images');
  try {
    const images = await generateImages(imageDir, 12, 0);
    await standalone('upload', values.keep ?? false, async ({ env, dataDir, services, startServer, serverPid }) => {
      log(`seeding ${posts} posts in ${dataDir}`);
      seedPosts(services.db, { count: posts, seed: 1 });
      await reindexCorpus(services);
      const url = await startServer();
      log(`server on ${url}; ${opts.reps} windows of ${opts.repMs} ms each`);
      const r = await benchUpload(services, url, images, opts, {
        serverPid: serverPid(),
        esPid: await elasticsearchPid(env.ELASTICSEARCH_URL),
        thumbnailBacklog: () => services.thumbnailQueue.size(),
      });
      process.stdout.write(`${JSON.stringify({ posts, ...r }, null, 2)}\n`);
      const cpu = r.cpuPerUploadMs;
      process.stdout.write(
        `| uploads, ${posts.toLocaleString('en-US')} posts | ${fmt(r.uploads.median)} uploads/s, p50 ${fmt(r.latency.p50)} ms | ` +
          `hashing alone ${fmt(r.hashing.median)} img/s | ${fmt(100 * r.ratio)} % | ` +
          `CPU per upload: server ${fmt(cpu?.server ?? NaN)} ms, ES ${fmt(cpu?.elasticsearch ?? NaN)} ms, load ${fmt(cpu?.loadGenerator ?? NaN)} ms | ` +
          `backlog ${r.backlog?.jobs.join(', ')}; drained in ${r.backlog?.drainSeconds.map((d) => fmt(d)).join(', ')} s |\n`,
      );
    });
  } finally {
    fs.rmSync(imageDir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
