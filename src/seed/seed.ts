import crypto from 'node:crypto';
import type { Db } from '../db/sqlite.ts';
import { IMAGE_FORMATS } from '../media/store/formats.ts';
import { RATINGS, type Rating } from '../kernel/post-record.ts';
import { VersionRepository } from '../kernel/version-repository.ts';
import { foldTag } from '../kernel/tag-fold.ts';
import { Random } from './random.ts';
import { WORDS } from './words.ts';

export interface SeedOptions {
  count: number;
  /** same seed, same data */
  seed?: number;
  /** accounts to create as owners (default 20) */
  users?: number;
  /** distinct tag names (default 3000) */
  tags?: number;
  /** share of posts without an owner (legacy posts; default 0.15) */
  ownerless?: number;
  /** groups of near-duplicate hashes (each 2-5 posts within 3 bits of a base; default count / 50) */
  clusters?: number;
  /** creation dates are spread from here over `years` (default 2020-01-01, 4 years) */
  from?: string;
  years?: number;
}

export interface SeedResult {
  count: number;
  users: { id: number; name: string }[];
  tags: string[];
  /** post ids of each planted near-duplicate group, with the base hash they were derived from */
  clusters: { base: string; postIds: string[] }[];
}

const EXTS = (['jpeg', 'png', 'webp', 'gif'] as const).map((f) => [IMAGE_FORMATS[f].ext, IMAGE_FORMATS[f].mime] as const);

/** A UUID v7 from a timestamp and the PRNG, so ids sort roughly by creation time like real ones. */
export function uuidV7(ms: number, rnd: Random): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0').slice(-12) + '7' + rnd.hex(3) + ((8 + rnd.int(0, 3)).toString(16)) + rnd.hex(15);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function makeUsers(db: Db, rnd: Random, n: number): { id: number; name: string }[] {
  const insert = db.prepare(
    `INSERT INTO users (name, email, password_hash, access_key, access_key_digest, permission, created_at)
     VALUES (?, NULL, 'seeded:no-login', ?, ?, 6, ?) ON CONFLICT (name) DO NOTHING`,
  );
  const find = db.prepare('SELECT id, name FROM users WHERE name = ?');
  const users: { id: number; name: string }[] = [];
  for (let i = 0; i < n; i++) {
    // Mixed case (uploadedBy is case-insensitive) and an all-digit name (it may also look like an id).
    const name = i % 7 === 3 ? String(1000 + i) : i % 2 ? `User_${i}` : `seeduser${i}`;
    const key = rnd.hex(43).replace(/[^a-z0-9]/g, '_');
    insert.run(name, key, crypto.createHash('sha256').update(key).digest(), '2019-06-01T00:00:00.000Z');
    users.push(find.get(name) as { id: number; name: string });
  }
  return users;
}

function makeText(rnd: Random): string {
  if (rnd.chance(0.05)) return '';
  const n = rnd.weighted([[1, 2], [3, 4], [6, 4], [12, 2], [30, 1]] as const);
  const words: string[] = [];
  for (let i = rnd.int(1, n); i > 0; i--) words.push(WORDS[rnd.skewed(WORDS.length, 1.4)]);
  const text = words.join(rnd.chance(0.1) ? '\n' : ' ');
  return rnd.chance(0.2) ? `${text}!` : text;
}

/**
 * Inserts `count` random posts straight into SQLite (no outbox rows, no image files): a fixture for
 * tests and benchmarks. Index them afterwards with `reindex()`. Deterministic for a given seed.
 */
export function seedPosts(db: Db, opts: SeedOptions): SeedResult {
  const rnd = new Random(opts.seed ?? 1);
  const tagCount = opts.tags ?? 3000;
  const ownerless = opts.ownerless ?? 0.15;
  const from = Date.parse(opts.from ?? '2020-01-01T00:00:00Z');
  const span = (opts.years ?? 4) * 365.25 * 86_400_000;

  const tagNames = Array.from({ length: tagCount }, (_, i) => (i % 11 === 5 ? `Tag_${i}` : `tag_${i}`));
  const clusters: SeedResult['clusters'] = [];
  const clusterSlots: { cluster: number; hash: string }[] = [];
  for (let c = 0; c < (opts.clusters ?? Math.floor(opts.count / 50)); c++) {
    const base = rnd.bits64();
    clusters.push({ base, postIds: [] });
    for (let k = rnd.int(2, 5); k > 0; k--) clusterSlots.push({ cluster: c, hash: rnd.flipBits(base, rnd.int(0, 3)) });
  }

  // Creation times ascending, like a real upload history; a few share a millisecond or a second.
  const times: number[] = [];
  for (let i = 0; i < opts.count; i++) times.push(from + Math.floor(rnd.next() * span));
  times.sort((a, b) => a - b);
  for (let i = 1; i < times.length; i++) {
    if (rnd.chance(0.03)) times[i] = times[i - 1];
    else if (rnd.chance(0.03)) times[i] = times[i - 1] - (times[i - 1] % 1000) + rnd.int(0, 999);
  }
  for (let i = 1; i < times.length; i++) times[i] = Math.max(times[i], times[i - 1]);

  const insertPost = db.prepare(
    `INSERT INTO posts (id, text, rating, ext, mime, width, height, hash, uploader_id, aggr, created_at, updated_at, version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertTag = db.prepare('INSERT INTO tags (name, folded) VALUES (?, ?) ON CONFLICT (name) DO NOTHING');
  const tagId = db.prepare('SELECT id FROM tags WHERE name = ?').pluck();
  const link = db.prepare('INSERT INTO post_tags (post_seq, tag_id) VALUES (?, ?)');

  let users: { id: number; name: string }[] = [];
  db.transaction(() => {
    users = makeUsers(db, rnd, opts.users ?? 20);
    for (const name of tagNames) insertTag.run(name, foldTag(name));
    const ids = tagNames.map((name) => tagId.get(name) as number);
    // Cluster members land on random posts.
    const slotAt = new Map<number, { cluster: number; hash: string }>();
    for (const slot of clusterSlots) {
      let at = rnd.int(0, opts.count - 1);
      while (slotAt.has(at) && slotAt.size < opts.count) at = (at + 1) % opts.count;
      if (slotAt.size < opts.count) slotAt.set(at, slot);
    }
    for (let i = 0; i < opts.count; i++) {
      const created = times[i];
      const id = uuidV7(created, rnd);
      const rating: Rating = rnd.weighted([[RATINGS[0], 60], [RATINGS[1], 25], [RATINGS[2], 15]] as const);
      const [ext, mime] = rnd.pick(EXTS);
      const owner = rnd.chance(ownerless) || users.length === 0 ? null : users[rnd.skewed(users.length, 1.5)];
      const slot = slotAt.get(i);
      const hash = slot?.hash ?? rnd.bits64();
      if (slot) clusters[slot.cluster].postIds.push(id);
      const updated = rnd.chance(0.3) ? created + rnd.int(1, 200 * 86_400_000) : created;
      const version = updated === created ? 1 : rnd.int(2, 4);
      const aggr = owner === null && rnd.chance(0.3) ? Math.round(rnd.next() * 1000) / 100 : null;
      const info = insertPost.run(id, makeText(rnd), rating, ext, mime, rnd.int(64, 4000), rnd.int(64, 4000), hash, owner?.id ?? null, aggr,
        new Date(created).toISOString(), new Date(updated).toISOString(), version);
      const seq = Number(info.lastInsertRowid);
      const tagSet = new Set<number>();
      for (let n = rnd.weighted([[0, 15], [1, 20], [2, 20], [3, 15], [4, 10], [5, 8], [6, 5], [7, 4], [8, 3]] as const); n > 0; n--)
        tagSet.add(rnd.skewed(tagCount));
      for (const t of tagSet) link.run(seq, ids[t]);
    }
    // Every post has a history (decisions §9), seeded ones included.
    new VersionRepository(db).backfillFirstVersions();
  }).immediate();
  return { count: opts.count, users, tags: tagNames, clusters };
}
