import crypto from 'node:crypto';
import { UserRepository } from '../../src/accounts/user-repository.ts';
import type { Db } from '../../src/db/sqlite.ts';
import { encodeDescriptor, UNREADABLE } from '../../src/robust/format.ts';
import { unitOfWorkOn, type SeededPost } from '../../src/kernel/unit-of-work.ts';
import { RATINGS, type Rating } from '../../src/kernel/post-record.ts';
import { PostRepository } from '../../src/kernel/post-repository.ts';
import { postPeopleOn, type PostPeopleTables } from '../../src/posts/post-tables.ts';
import { IMAGE_FORMATS, VIDEO_FORMATS } from '../../src/media-store/formats.ts';
import { NoteRepository } from '../../src/notes/note-repository.ts';
import { WikiRepository } from '../../src/wiki/wiki-repository.ts';
import { Random } from './random.ts';
import { seedPools } from './pools.ts';
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
  /** docs/decisions.md §18: votes and comments by the seeded accounts on random posts (default none) */
  votes?: number;
  comments?: number;
  /** docs/decisions.md §19: share of posts with a source, and with a parent among earlier posts (default 0) */
  sources?: number;
  parents?: number;
  /**
   * docs/decisions.md §19: one parent with many children, for tests of what happens to them together: posts
   * `from` … `from + count - 1` of the batch get post `parent` (an earlier one) as their parent. No random draw.
   */
  family?: { parent: number; from: number; count: number };
  /** pools of 1 to `maxSize` of the seeded posts (default none) */
  pools?: { count: number; maxSize: number };
  /**
   * docs/decisions.md §23: notes by the seeded accounts, small boxes near a corner (default none): a number of
   * them on random posts, or `posts` distinct random posts with 1 to `perPost` notes each.
   */
  notes?: number | { posts: number; perPost: number };
  /**
   * docs/decisions.md §23: wiki pages for `pages` distinct seeded tags, common tags more likely, written by the
   * seeded accounts: one to four paragraphs of words with `[[tag]]` and `{{search}}` links and post numbers
   * (default none).
   */
  wiki?: { pages: number };
  /**
   * docs/decisions.md §21: share of posts that are moving pictures (default none), two in three videos (WebM or
   * MP4, 1 s to 2 min, most with sound) and one in three animations (GIF, 0.5 to 10 s, silent). Drawn from a PRNG
   * of their own, so the posts of a seed are otherwise the same with or without them.
   */
  moving?: number;
}

export interface SeedResult {
  count: number;
  users: { id: number; name: string }[];
  tags: string[];
  /** post ids of each planted near-duplicate group, with the base hash they were derived from */
  clusters: { base: string; postIds: string[] }[];
}

const EXTS = (['jpeg', 'png', 'webp', 'gif'] as const).map(
  (f) => [IMAGE_FORMATS[f].ext, IMAGE_FORMATS[f].mime] as const,
);
const VIDEO_EXTS = (['webm', 'mp4'] as const).map((f) => [VIDEO_FORMATS[f].ext, VIDEO_FORMATS[f].mime] as const);

/** A moving picture's file and media for one seeded post in `share`, or nothing for a still image. */
function movingPicture(
  rnd: Random,
  share: number,
): { ext: string; mime: string; media: NonNullable<SeededPost['media']> } | undefined {
  if (!rnd.chance(share)) return undefined;
  if (rnd.chance(1 / 3)) {
    const duration = rnd.int(5, 100) / 10;
    const media = { kind: 'animation' as const, duration, frames: Math.round(duration * 10), hasAudio: false };
    return { ext: IMAGE_FORMATS.gif.ext, mime: IMAGE_FORMATS.gif.mime, media };
  }
  const [ext, mime] = rnd.pick(VIDEO_EXTS);
  const duration = rnd.int(10, 1200) / 10;
  return {
    ext,
    mime,
    media: { kind: 'video', duration, frames: Math.round(duration * 30), hasAudio: rnd.chance(0.7) },
  };
}

/** A UUID v7 from a timestamp and the PRNG, so ids sort roughly by creation time like real ones. */
export function uuidV7(ms: number, rnd: Random): string {
  const hex =
    Math.max(0, ms).toString(16).padStart(12, '0').slice(-12) +
    '7' +
    rnd.hex(3) +
    (8 + rnd.int(0, 3)).toString(16) +
    rnd.hex(15);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function makeUsers(users: UserRepository, rnd: Random, n: number): { id: number; name: string }[] {
  const made: { id: number; name: string }[] = [];
  for (let i = 0; i < n; i++) {
    // Mixed case (uploadedBy is case-insensitive) and an all-digit name (it may also look like an id).
    const name = i % 7 === 3 ? String(1000 + i) : i % 2 ? `User_${i}` : `seeduser${i}`;
    const key = rnd.hex(43).replace(/[^a-z0-9]/g, '_');
    // Seeding twice into one database reuses the accounts (names are unique without regard to case).
    const existing = users.getByName(name);
    if (existing) {
      made.push({ id: existing.id, name: existing.name });
      continue;
    }
    const accessKeyDigest = crypto.createHash('sha256').update(key).digest();
    const id = users.insert({
      name,
      email: null,
      passwordHash: 'seeded:no-login',
      accessKey: key,
      accessKeyDigest,
      permission: 6,
      createdAt: '2019-06-01T00:00:00.000Z',
    });
    made.push({ id, name });
  }
  return made;
}

function makeText(rnd: Random): string {
  if (rnd.chance(0.05)) return '';
  const n = rnd.weighted([
    [1, 2],
    [3, 4],
    [6, 4],
    [12, 2],
    [30, 1],
  ] as const);
  const words: string[] = [];
  for (let i = rnd.int(1, n); i > 0; i--) words.push(WORDS[rnd.skewed(WORDS.length, 1.4)]);
  const text = words.join(rnd.chance(0.1) ? '\n' : ' ');
  return rnd.chance(0.2) ? `${text}!` : text;
}

/**
 * Votes (mostly up, on popular posts more often) and comments on the posts numbered from `firstSeq`, drawn
 * after every post (so the posts of a seed do not change with these options). The counts follow by trigger.
 */
function seedConversation(
  people: Pick<PostPeopleTables, 'votes' | 'comments'>,
  rnd: Random,
  users: { id: number }[],
  firstSeq: number,
  opts: SeedOptions,
): void {
  if (users.length === 0) return;
  const postAt = (): number => firstSeq + rnd.skewed(opts.count, 1.2);
  const userAt = () => users[rnd.int(0, users.length - 1)].id;
  const at = (): string => new Date(Date.parse('2024-01-01T00:00:00Z') + rnd.int(0, 365 * 86_400_000)).toISOString();
  people.votes.insertMany(
    (function* () {
      for (let i = 0; i < (opts.votes ?? 0); i++)
        yield {
          userId: userAt(),
          postSeq: postAt(),
          value: rnd.chance(0.7) ? (1 as const) : (-1 as const),
          createdAt: at(),
        };
    })(),
  );
  people.comments.insertMany(
    (function* () {
      for (let i = 0; i < (opts.comments ?? 0); i++)
        yield { postSeq: postAt(), authorId: userAt(), body: makeText(rnd) || 'first', createdAt: at() };
    })(),
  );
}

/**
 * Notes on random posts (drawn after everything else, so older seeds keep their posts), written in time
 * order as a board writes them. Seeded images are at least 64 pixels wide and high: a box within the
 * first 64 always lies inside. The post's note count and last note time follow by trigger.
 */
function seedNotes(notes: NoteRepository, rnd: Random, users: { id: number }[], firstSeq: number, opts: SeedOptions) {
  if (users.length === 0 || !opts.notes) return;
  const start = Date.parse('2024-06-01T00:00:00Z');
  let i = 0;
  // The post is drawn after the box and the time (the order older seeds drew them in).
  const note = (seq: () => number) => {
    const x = rnd.int(0, 31);
    const y = rnd.int(0, 31);
    const box = { x, y, width: rnd.int(1, 64 - x), height: rnd.int(1, 64 - y) };
    const at = new Date(start + i++ * 60_000 + rnd.int(0, 59_999)).toISOString();
    notes.insert(seq(), box, makeText(rnd) || 'note', users[rnd.int(0, users.length - 1)].id, at);
  };
  if (typeof opts.notes === 'number') {
    for (let n = 0; n < opts.notes; n++) note(() => firstSeq + rnd.int(0, opts.count - 1));
    return;
  }
  const noted = new Set<number>();
  const want = Math.min(opts.notes.posts, opts.count);
  while (noted.size < want) noted.add(firstSeq + rnd.int(0, opts.count - 1));
  for (const seq of noted) for (let k = rnd.int(1, opts.notes.perPost); k > 0; k--) note(() => seq);
}

/**
 * Wiki pages for distinct tags, drawn as posts draw their tags (common ones more likely), in time order.
 * Their text links other tags (with a page or not), searches and posts, as Danbooru's pages do.
 */
function seedWiki(
  wiki: WikiRepository,
  rnd: Random,
  users: { id: number }[],
  tagNames: readonly string[],
  opts: SeedOptions,
) {
  if (!opts.wiki) return;
  const pages = new Set<string>();
  const want = Math.min(opts.wiki.pages, tagNames.length);
  while (pages.size < want) pages.add(tagNames[rnd.skewed(tagNames.length)]);
  const start = Date.parse('2023-01-01T00:00:00Z');
  let i = 0;
  for (const tag of pages) {
    const paragraphs: string[] = [];
    for (let p = rnd.int(1, 4); p > 0; p--) {
      const words: string[] = [];
      for (let w = rnd.int(8, 60); w > 0; w--) {
        const r = rnd.next();
        if (r < 0.06) words.push(`[[${tagNames[rnd.skewed(tagNames.length)]}]]`);
        else if (r < 0.07) words.push(`{{${tagNames[rnd.skewed(tagNames.length)]} rating:g}}`);
        else if (r < 0.075) words.push(`post #${rnd.int(1, Math.max(1, opts.count))}`);
        else words.push(WORDS[rnd.skewed(WORDS.length, 1.4)]);
      }
      paragraphs.push(`${words.join(' ')}.`);
    }
    const otherNames = rnd.chance(0.3) ? [`${tag}_${rnd.pick(WORDS)}`] : [];
    const at = new Date(start + i++ * 600_000 + rnd.int(0, 599_999)).toISOString();
    wiki.insert(
      tag,
      paragraphs.join('\n\n'),
      otherNames,
      users.length ? users[rnd.int(0, users.length - 1)].id : null,
      at,
    );
  }
}

/**
 * Writes `count` random posts into SQLite (no outbox rows, no image files, so their robust
 * descriptors are stored as unreadable and their MD5 as none): a fixture for tests and benchmarks. Index them
 * afterwards with `reindex()`. Deterministic for a given seed.
 */
/**
 * Sources and parents (docs/decisions.md §19) on the share of posts `opts` asks for, and its family; with none asked,
 * no random draw, so older seeds give the same posts. Post i is numbered firstSeq + i (one transaction,
 * AUTOINCREMENT), so a parent is an earlier post of the batch.
 */
function* organized(
  posts: Iterable<SeededPost>,
  rnd: Random,
  opts: SeedOptions,
  firstSeq: number,
): Generator<SeededPost> {
  let i = 0;
  for (const post of posts) {
    if (opts.sources && rnd.chance(opts.sources))
      post.source = `https://${rnd.pick(['Example.org', 'art.example.net', 'pics.example'])}/${rnd.pick(WORDS)}/${i}`;
    if (opts.parents && i > 0 && rnd.chance(opts.parents)) post.parentSeq = firstSeq + rnd.int(0, i - 1);
    const family = opts.family;
    if (family && i >= family.from && i < family.from + family.count) post.parentSeq = firstSeq + family.parent;
    yield post;
    i++;
  }
}

export function seedPosts(db: Db, opts: SeedOptions): SeedResult {
  const rnd = new Random(opts.seed ?? 1);
  const tagCount = opts.tags ?? 3000;
  const ownerless = opts.ownerless ?? 0.15;
  const from = Date.parse(opts.from ?? '2020-01-01T00:00:00Z');
  const span = (opts.years ?? 4) * 365.25 * 86_400_000;
  const movingRnd = new Random((opts.seed ?? 1) * 7919 + 21);

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
    // eslint-disable-next-line no-dupe-else-if -- a second draw, not the same condition
    else if (rnd.chance(0.03)) times[i] = times[i - 1] - (times[i - 1] % 1000) + rnd.int(0, 999);
  }
  for (let i = 1; i < times.length; i++) times[i] = Math.max(times[i], times[i - 1]);

  const userTable = new UserRepository(db);
  const people = postPeopleOn(db);
  const postTable = new PostRepository(db, userTable, people);
  const unitOfWork = unitOfWorkOn(db, userTable);
  let users: { id: number; name: string }[] = [];
  // One unit of work: no outbox rows and no events (the caller reindexes afterwards).
  unitOfWork.writeInBackground((tx) => {
    users = makeUsers(userTable, rnd, opts.users ?? 20);
    // Every tag first, in order (their ids follow it), used or not.
    postTable.ensureTags(tagNames);
    // Cluster members land on random posts.
    const slotAt = new Map<number, { cluster: number; hash: string }>();
    for (const slot of clusterSlots) {
      let at = rnd.int(0, opts.count - 1);
      while (slotAt.has(at) && slotAt.size < opts.count) at = (at + 1) % opts.count;
      if (slotAt.size < opts.count) slotAt.set(at, slot);
    }
    // Written through the kernel's batch commit, which also gives every post its first version
    // (docs/decisions.md §9: seeded posts have a history too). Generated lazily, in the PRNG's order.
    function* posts(): Generator<SeededPost> {
      for (let i = 0; i < opts.count; i++) {
        const created = times[i];
        const id = uuidV7(created, rnd);
        const rating: Rating = rnd.weighted([
          [RATINGS[0], 60],
          [RATINGS[1], 25],
          [RATINGS[2], 15],
        ] as const);
        const [stillExt, stillMime] = rnd.pick(EXTS);
        const moving = opts.moving ? movingPicture(movingRnd, opts.moving) : undefined;
        const owner = rnd.chance(ownerless) || users.length === 0 ? null : users[rnd.skewed(users.length, 1.5)];
        const slot = slotAt.get(i);
        const hash = slot?.hash ?? rnd.bits64();
        if (slot) clusters[slot.cluster].postIds.push(id);
        const updated = rnd.chance(0.3) ? created + rnd.int(1, 200 * 86_400_000) : created;
        const version = updated === created ? 1 : rnd.int(2, 4);
        const aggr = owner === null && rnd.chance(0.3) ? Math.round(rnd.next() * 1000) / 100 : null;
        const text = makeText(rnd);
        const width = rnd.int(64, 4000);
        const height = rnd.int(64, 4000);
        const tagSet = new Set<number>();
        for (
          let n = rnd.weighted([
            [0, 15],
            [1, 20],
            [2, 20],
            [3, 15],
            [4, 10],
            [5, 8],
            [6, 5],
            [7, 4],
            [8, 3],
          ] as const);
          n > 0;
          n--
        )
          tagSet.add(rnd.skewed(tagCount));
        yield {
          id,
          text,
          rating,
          ext: moving?.ext ?? stillExt,
          mime: moving?.mime ?? stillMime,
          ...(moving ? { media: moving.media } : {}),
          width,
          height,
          hash,
          uploaderId: owner?.id ?? null,
          aggr,
          createdAt: new Date(created).toISOString(),
          updatedAt: new Date(updated).toISOString(),
          version,
          tags: [...tagSet].map((t) => tagNames[t]),
        };
      }
    }
    const before = postTable.lastSeq();
    const firstSeq = postTable.links.nextSeq();
    tx.seeded(postTable, organized(posts(), rnd, opts, firstSeq));
    // Seeded posts have no image files: their descriptors are unreadable (never matching), as the
    // server's backfill would find out one post and one reindex at a time, in the background of
    // whatever a test or benchmark then measures.
    postTable.robust.storeAbove(before, encodeDescriptor(UNREADABLE));
    // Nor an MD5 or a size (docs/decisions.md §20): recorded as gone here, or the server's backfill
    // would find that out one post at a time, as above.
    postTable.files.markGoneAbove(before);
    // Nor the eight symmetries' hashes (docs/decisions.md §24): their own hash stands for all, as the backfill
    // would record one file at a time.
    postTable.dihedral.markNoneAbove(before);
    if (opts.pools)
      seedPools(db, postTable, userTable, rnd, {
        pools: opts.pools.count,
        maxSize: opts.pools.maxSize,
        firstSeq,
        count: opts.count,
        at: new Date(from).toISOString(),
      });
    seedConversation(people, rnd, users, firstSeq, opts);
    seedNotes(new NoteRepository(db), rnd, users, firstSeq, opts);
    seedWiki(new WikiRepository(db), rnd, users, tagNames, opts);
  });
  return { count: opts.count, users, tags: tagNames, clusters };
}
