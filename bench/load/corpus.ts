/**
 * A corpus kept between runs (issue 28): `npx tsx bench/load/corpus.ts --dir DIR --posts N`.
 *
 * Seeding and indexing 1M posts takes many minutes, so the page-view load and the facets driver can
 * reuse one DATA_DIR and its index: the first call seeds SQLite (src/seed, seed 1), indexes it
 * (reindex()), creates the account the load writes with, and gives every post media files; later
 * calls with the same DIR only read `corpus.json`. Writes of earlier runs stay in it (a few
 * thousand edits and uploads among a million posts).
 *
 * Media: the seeder writes rows only. A browser's page view fetches thumbnails and the post page the
 * image, so every post gets its `<id>.320.webp`, `<id>.1024.webp` and original as hard links to a
 * pool of distinct photo-like files (ext4 allows 65,000 links per file; a pool of 64 stays far
 * below), which takes about a minute at 1M instead of writing gigabytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import type { Db } from '../../src/db/sqlite.ts';
import { encodeDescriptor, UNREADABLE } from '../../src/hashing/robust/format.ts';
import { mediaKey } from '../../src/media/store/media-store.ts';
import { openToolJob } from '../../src/roles/jobs.ts';
import { reindex } from '../../src/search/reindex.ts';
import { seedPosts } from '../../src/seed/seed.ts';
import { benchEnv, tempDir } from '../lib/env.ts';
import { generateImages } from '../lib/images.ts';
import { runIfMain } from '../lib/standalone.ts';

export interface Corpus {
  dir: string;
  prefix: string;
  esUrl: string;
  posts: number;
  /** the seeder's tag names, most used first (its skew) */
  tags: string[];
  users: { id: number; name: string }[];
  /** an account allowed to edit and upload (X-Access-Key) */
  writer: { name: string; accessKey: string };
  /** the environment the server and tool jobs are started with */
  env: Record<string, string>;
}

const POOL = 64;
const log = (line: string) => process.stderr.write(`[corpus ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Pool files for the links: the originals are 1-MP JPEGs, the thumbnails WebP from them, as the thumbnailer makes. */
async function mediaPool(dir: string): Promise<{ original: string; t320: string; t1024: string }[]> {
  const images = await generateImages(path.join(dir, 'pool'), POOL, 0, 9100);
  const out = [];
  for (const img of images) {
    const t320 = img.path.replace(/\.jpg$/, '.320.webp');
    const t1024 = img.path.replace(/\.jpg$/, '.1024.webp');
    await sharp(img.path).resize(320, 320, { fit: 'inside' }).webp().toFile(t320);
    await sharp(img.path).resize(1024, 1024, { fit: 'inside' }).webp().toFile(t1024);
    out.push({ original: img.path, t320, t1024 });
  }
  return out;
}

function linkMedia(
  dataDir: string,
  rows: { id: string; ext: string }[],
  pool: { original: string; t320: string; t1024: string }[],
): void {
  const root = path.join(dataDir, 'images');
  const made = new Set<string>();
  rows.forEach((r, i) => {
    const p = pool[i % pool.length];
    for (const [name, from] of [
      [`${r.id}.320.webp`, p.t320],
      [`${r.id}.1024.webp`, p.t1024],
      [`${r.id}.${r.ext}`, p.original],
    ] as const) {
      const target = path.join(root, mediaKey(name));
      const shard = path.dirname(target);
      if (!made.has(shard)) {
        fs.mkdirSync(shard, { recursive: true });
        made.add(shard);
      }
      try {
        fs.linkSync(from, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    if (i % 100_000 === 99_999) log(`media for ${i + 1} posts`);
  });
}

/**
 * The seeded posts get media files below, so a server would start the robust-descriptor backfill
 * over all of them (docs/decisions.md §16: posts.robust IS NULL is its cursor) and spend a hash worker on it
 * for hours at 1M. The backfill is a one-time migration, not the steady state a load measures: the
 * seeded posts are marked computed-and-unreadable (never matching); uploads still get theirs.
 * seedPosts now stores that itself; this marks corpora seeded before it did.
 */
export function markDescriptorsDone(db: Db): number {
  return db.prepare('UPDATE posts SET robust = ? WHERE robust IS NULL').run(encodeDescriptor(UNREADABLE)).changes;
}

export async function openCorpus(o: { dir: string; posts: number; esUrl: string }): Promise<Corpus> {
  const file = path.join(o.dir, 'corpus.json');
  if (fs.existsSync(file)) {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Corpus;
    if (kept.posts !== o.posts || kept.esUrl !== o.esUrl)
      throw new Error(
        `${file} holds ${kept.posts} posts on ${kept.esUrl}, not ${o.posts} on ${o.esUrl}: use another --dir`,
      );
    return kept;
  }
  fs.mkdirSync(o.dir, { recursive: true });
  const dataDir = path.join(o.dir, 'data');
  const prefix = `corpus-${path.basename(o.dir)}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const env = { ...benchEnv({ dataDir, prefix, esUrl: o.esUrl }), WEBHOOK_ALLOW_PRIVATE: '1' };
  const services = await openToolJob(loadConfig(env), createLogger('warn'));
  try {
    const t0 = Date.now();
    const seed = seedPosts(services.db, { count: o.posts, seed: 1 });
    log(`seeded ${o.posts} posts in ${((Date.now() - t0) / 1000).toFixed(0)} s; indexing`);
    const t1 = Date.now();
    await reindex(services, { settleMs: 50, retire: 'now' });
    log(`indexed in ${((Date.now() - t1) / 1000).toFixed(0)} s; media links`);
    const writer = await services.accounts.createUser({
      name: 'load_runner',
      password: 'load runner password',
      permission: 0x2 | 0x4 | 0x2000,
    });
    const pool = await mediaPool(o.dir);
    const rows = services.db.prepare('SELECT id, ext FROM posts').all() as { id: string; ext: string }[];
    linkMedia(dataDir, rows, pool);
    const corpus: Corpus = {
      dir: o.dir,
      prefix,
      esUrl: o.esUrl,
      posts: o.posts,
      tags: seed.tags,
      users: seed.users,
      writer: { name: writer.name, accessKey: writer.accessKey },
      env,
    };
    fs.writeFileSync(file, `${JSON.stringify(corpus)}\n`);
    log(`corpus ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    return corpus;
  } finally {
    await services.close();
  }
}

/** A throwaway corpus (the default of the page-view load without --corpus): removed by `drop`. */
export async function temporaryCorpus(
  posts: number,
  esUrl: string,
): Promise<{ corpus: Corpus; drop(): Promise<void> }> {
  const dir = tempDir('pv');
  const corpus = await openCorpus({ dir, posts, esUrl });
  return {
    corpus,
    async drop() {
      const job = await openToolJob(loadConfig(corpus.env), createLogger('warn'));
      await job.es.indices
        .delete({ index: `${corpus.prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] })
        .catch(() => {});
      await job.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

runIfMain(import.meta.url, async () => {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, posts: { type: 'string', default: '1000000' } } });
  if (!values.dir) throw new Error('--dir DIR is required');
  const esUrl = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';
  const c = await openCorpus({ dir: path.resolve(values.dir), posts: Number(values.posts), esUrl });
  // Corpora made before the descriptors were marked: mark them now (idempotent).
  const job = await openToolJob(loadConfig(c.env), createLogger('warn'));
  const marked = markDescriptorsDone(job.db);
  await job.close();
  process.stdout.write(
    `${JSON.stringify({ dir: c.dir, prefix: c.prefix, posts: c.posts, dataDir: c.env.DATA_DIR, descriptorsMarked: marked })}\n`,
  );
});
