/**
 * Building a kept corpus in chunks (issue 41): every step is resumable, so a build of 10M posts that is
 * stopped (Ctrl-C, a crash, the end of a session) goes on where it stopped when called again.
 *
 * A chunk is `CHUNK` posts seeded in one transaction by tools/seed (seed `1 + chunk`, its own span of
 * creation dates, later chunks newer), with votes, comments, sources, parents and pools; then, in a
 * second transaction, favorites and a robust descriptor for each of its posts; then its media links.
 * The database says which chunks are seeded (their posts are counted: a chunk commits whole or not at
 * all); `build.json` says how far the other two steps went, and both steps may run twice on a chunk
 * without harm (favorites are inserted or ignored, descriptors overwritten with the same values, links
 * that exist kept).
 *
 * Proportions per post (a board of the Danbooru kind, scaled): 1 vote (70 % up), 0.2 comments, 0.5
 * favorites by 1,000 accounts on posts of skewed popularity; a robust descriptor on one post in
 * ROBUST_EVERY; 60 % with a source, 3 % with a parent; a pool per 1,000 posts of 1 to 200 of them;
 * 3,000 tag names at every size, so that the figures' queries are the same ones at 100k, 1M and 10M.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { encodeDescriptor } from '../../src/robust/format.ts';
import { TRANSFORMS } from '../../src/hashing/dihedral.ts';
import { encodeDihedral, type DihedralSet } from '../../src/kernel/dihedral-hashes.ts';
import { robustDescriptor } from '../../src/robust/descriptor.ts';
import { greyRaster, sourceRaster } from '../../src/robust/raster.ts';
import type { Descriptor } from '../../src/robust/rule.ts';
import { mediaKey } from '../../src/media-store/media-store.ts';
import type { ToolJob } from '../../src/roles/jobs.ts';
import { Random } from '../../tools/seed/random.ts';
import { seedPosts, type SeedResult } from '../../tools/seed/seed.ts';
import { generateImages } from '../lib/images.ts';
import { unrelated } from '../robust/corpus.ts';

export const CHUNK = 250_000;
const USERS = 1000;
/**
 * Every post has a robust descriptor the index holds terms for (issue 49; issue 41's corpora had one in 50). A
 * descriptor adds 411 terms to its document (4.6 KB of JSON against 1 KB without), and a document with them
 * costs Elasticsearch about ten times as much to index: bench/notes/scale.md says what that means for a 10M
 * build. Kept a constant so a sample can be asked for again.
 */
export const ROBUST_EVERY = 1;
/** Clusters of planted near-duplicates kept per chunk for the similar-lookup queries. */
const CLUSTERS_KEPT = 200;
/** ext4 allows 65,000 hard links to a file: the pool grows with the corpus. */
const poolSize = (posts: number) => Math.max(64, Math.ceil(posts / 50_000));

export interface BuildState {
  posts: number;
  chunk: number;
  /** chunks whose favorites and descriptors are written */
  extras: number;
  /** chunks whose media links are made */
  media: number;
  tags: string[];
  users: { id: number; name: string }[];
  clusters: SeedResult['clusters'];
  seedSeconds: number;
}

export interface PoolFile {
  original: string;
  t320: string;
  t1024: string;
  descriptor: Descriptor;
}

/** Pool files for the links, and each picture's robust descriptor as the service computes it. */
async function mediaPool(dir: string, count: number): Promise<PoolFile[]> {
  const images = await generateImages(path.join(dir, 'pool'), count, 0, 9100);
  const out: PoolFile[] = [];
  for (const img of images) {
    const t320 = img.path.replace(/\.jpg$/, '.320.webp');
    const t1024 = img.path.replace(/\.jpg$/, '.1024.webp');
    if (!fs.existsSync(t320)) await sharp(img.path).resize(320, 320, { fit: 'inside' }).webp().toFile(t320);
    if (!fs.existsSync(t1024)) await sharp(img.path).resize(1024, 1024, { fit: 'inside' }).webp().toFile(t1024);
    const grey = await greyRaster(await sourceRaster(sharp(img.path).rotate()));
    if (!grey) throw new Error(`${img.path}: no grey raster`);
    const d = robustDescriptor(grey);
    out.push({ original: img.path, t320, t1024, descriptor: { hashes: d.hashes, quality: d.quality, cells: d.cells } });
  }
  return out;
}

function linkMedia(dataDir: string, rows: { seq: number; id: string; ext: string }[], pool: PoolFile[]): void {
  const root = path.join(dataDir, 'images');
  const made = new Set<string>();
  for (const r of rows) {
    const p = pool[r.seq % pool.length];
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
  }
}

/**
 * Favorites and descriptors of chunk `c` (posts numbered `first` … `first + n - 1`): each post's descriptor is
 * a pool picture's made unrelated (segments rotated, 3 % of the bits flipped: real value statistics,
 * unrelated positions), so lookups meet realistic candidates and only the post's own copies match.
 */
function writeExtras(job: ToolJob, c: number, first: number, n: number, users: { id: number }[], pool: PoolFile[]) {
  const rnd = new Random(7000 + c);
  const db = job.db;
  db.transaction(() => {
    const fav = db.prepare(
      'INSERT INTO favorites (user_id, post_seq, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    for (let i = 0; i < n / 2; i++)
      fav.run(
        users[rnd.skewed(users.length, 1.5)].id,
        first + rnd.skewed(n, 1.2),
        new Date(Date.UTC(2024, 0, 1) + rnd.int(0, 365 * 86_400_000)).toISOString(),
      );
    const robust = db.prepare('UPDATE posts SET robust = ? WHERE seq = ?');
    for (let seq = first; seq < first + n; seq++)
      if (seq % ROBUST_EVERY === 0)
        robust.run(encodeDescriptor(unrelated(rnd, pool[seq % pool.length].descriptor)), seq);
    // docs/decisions.md §24: a full set of eight hashes on every post (its own, then seven unrelated ones), so a
    // post page's similar list costs at every size what it costs a board of real uploads: eight lookups.
    const dihedral = db.prepare('UPDATE posts SET dihedral = ? WHERE seq = ?');
    const hashOf = db.prepare('SELECT hash FROM posts WHERE seq = ?').pluck();
    for (let seq = first; seq < first + n; seq++) {
      const own = hashOf.get(seq) as string | undefined;
      if (own === undefined) continue;
      const set = Object.fromEntries(TRANSFORMS.map((t, i) => [t, i === 0 ? own : rnd.bits64()])) as DihedralSet;
      dihedral.run(encodeDihedral(set), seq);
    }
  })();
}

/**
 * Seeds, completes and links `posts` posts in `dataDir` through `job`, from wherever an earlier call stopped.
 * `log` hears of every chunk.
 */
export async function buildChunks(
  job: ToolJob,
  dir: string,
  dataDir: string,
  posts: number,
  log: (line: string) => void,
): Promise<BuildState> {
  const chunk = Math.min(CHUNK, posts);
  if (posts % chunk !== 0) throw new Error(`a corpus is built in chunks of ${chunk}: ${posts} is not a multiple`);
  const chunks = posts / chunk;
  const file = path.join(dir, 'build.json');
  const state: BuildState = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as BuildState)
    : { posts, chunk, extras: 0, media: 0, tags: [], users: [], clusters: [], seedSeconds: 0 };
  const save = () => fs.writeFileSync(file, `${JSON.stringify(state)}\n`);
  // SQLite's default page cache is 2 MB: past a few million posts every chunk's index updates would go to the
  // kernel for their pages. A build is a job of its own and may hold a gigabyte.
  job.db.pragma('cache_size = -1000000');
  const pool = await mediaPool(dir, poolSize(posts));
  const count = () => job.db.prepare('SELECT count(*) FROM posts').pluck().get() as number;
  const firstSeq = () => job.db.prepare('SELECT min(seq) FROM posts').pluck().get() as number | null;
  const started = Date.now();
  let seeded = count() / chunk;
  if (!Number.isInteger(seeded)) throw new Error(`${dataDir} holds ${count()} posts: not whole chunks of ${chunk}`);
  // Creation dates: 16 years in all, each chunk its share, in order (a real upload history).
  const years = 16 / chunks;
  for (; seeded < chunks; seeded++) {
    const t0 = Date.now();
    const seed = seedPosts(job.db, {
      count: chunk,
      seed: 1 + seeded,
      users: USERS,
      from: new Date(Date.UTC(2010, 0, 1) + seeded * years * 365.25 * 86_400_000).toISOString(),
      years,
      votes: chunk,
      comments: chunk / 5,
      sources: 0.6,
      parents: 0.03,
      pools: { count: Math.max(1, chunk / 1000), maxSize: 200 },
    });
    state.tags = seed.tags;
    state.users = seed.users;
    state.clusters.push(...seed.clusters.slice(0, CLUSTERS_KEPT));
    state.seedSeconds += (Date.now() - t0) / 1000;
    save();
    log(`chunk ${seeded + 1}/${chunks}: seeded ${chunk} posts in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const base = firstSeq() ?? 1;
  for (; state.extras < chunks; state.extras++, save()) {
    const t0 = Date.now();
    writeExtras(job, state.extras, base + state.extras * chunk, chunk, state.users, pool);
    log(`chunk ${state.extras + 1}/${chunks}: favorites and descriptors in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const rows = job.db.prepare('SELECT seq, id, ext FROM posts WHERE seq >= ? AND seq < ? ORDER BY seq');
  for (; state.media < chunks; state.media++, save()) {
    const t0 = Date.now();
    const from = base + state.media * chunk;
    linkMedia(dataDir, rows.all(from, from + chunk) as { seq: number; id: string; ext: string }[], pool);
    log(`chunk ${state.media + 1}/${chunks}: media links in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  log(`built ${posts} posts (${((Date.now() - started) / 1000).toFixed(0)} s in this call)`);
  return state;
}
