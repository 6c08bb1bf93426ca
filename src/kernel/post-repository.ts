import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { TagRules } from './tag-rules.ts';
import type { ImageItemRow, PostMedia, PostRecord, Rating, TagCategory } from './post-record.ts';
import type { UserNames } from './user-names.ts';
import type { Commenters, Favoriters, PostPeople, Voters } from './post-people.ts';
import { RobustDescriptors } from '../robust/descriptor-table.ts';
import { PoolMembership } from './pool-membership.ts';
import { PostLinks } from './post-links.ts';
import { FileFacts } from './file-facts.ts';
import { DihedralHashes } from './dihedral-hashes.ts';
import { PostOrigins } from './post-origins.ts';
import { POST_SELECT as SELECT, PostHydration, type PostRow } from './post-hydration.ts';
import { PostWrites, type NewPost } from './post-writes.ts';

export type { NewPost };

/**
 * SQLite access for posts and their tags, the one door callers use. Rows become records in
 * post-hydration.ts; inserts and tag links are written by post-writes.ts. Callers own the transactions.
 */
export class PostRepository {
  /** A post read is in nearly every request: its statements are prepared once. */
  private readonly stmt: (sql: string) => Statement;
  /** a post's favoriters are part of its record (the search document's `favorited_by`) */
  readonly favorites: Favoriters;
  /** docs/decisions.md §18: a post's commenters and vote counts are part of its record too */
  readonly comments: Commenters;
  readonly votes: Voters;
  /** Aliases and implications: every tag set is resolved through them before it is stored. */
  readonly tagRules: TagRules;
  /**
   * the robust descriptors (docs/decisions.md §16): kept apart from the record, which outbox rows and every read carry
   */
  readonly robust: RobustDescriptors;
  /** the pools' orders (docs/decisions.md §19): a post's places are part of its record */
  readonly pools: PoolMembership;
  /** parents, children, and post numbers by UUID (docs/decisions.md §19) */
  readonly links: PostLinks;
  /** the stored files' MD5 and size (docs/decisions.md §20) */
  readonly files: FileFacts;
  /** the hashes under the eight symmetries the post page's similar list looks up (docs/decisions.md §24) */
  readonly dihedral: DihedralHashes;
  /** where imported posts came from (docs/decisions.md §22) */
  readonly origins: PostOrigins;

  /** post rows made records */
  private readonly records: PostHydration;
  /** inserts and tag links */
  private readonly writes: PostWrites;

  constructor(
    private readonly db: Db,
    /** uploaders' names (the users table is the accounts') */
    users: UserNames,
    /** favoriters, commenters and voters (their tables are the features') */
    people: PostPeople,
  ) {
    this.stmt = statementCache(db);
    this.favorites = people.favorites;
    this.comments = people.comments;
    this.votes = people.votes;
    this.tagRules = new TagRules(db);
    this.robust = new RobustDescriptors(db);
    this.pools = new PoolMembership(db);
    this.links = new PostLinks(db);
    this.files = new FileFacts(db);
    this.dihedral = new DihedralHashes(db);
    this.origins = new PostOrigins(db);
    this.records = new PostHydration(this.stmt, {
      users,
      favorites: this.favorites,
      comments: this.comments,
      pools: this.pools,
      origins: this.origins,
    });
    this.writes = new PostWrites(db, this.stmt, this.tagRules);
  }

  /** The tag set a write of `names` stores: aliases replaced by their targets, implications added. */
  resolveTags(names: readonly string[]): string[] {
    return this.tagRules.resolve(names);
  }

  private hydrate(rows: PostRow[]): PostRecord[] {
    return this.records.hydrate(rows);
  }

  getById(id: string): PostRecord | undefined {
    return this.hydrate(this.stmt(`${SELECT} WHERE p.id = ?`).all(id) as PostRow[])[0];
  }

  getBySeq(seq: number): PostRecord | undefined {
    return this.hydrate(this.stmt(`${SELECT} WHERE p.seq = ?`).all(seq) as PostRow[])[0];
  }

  /** Posts by id, in the order asked; ids that no longer exist are left out. */
  getManyById(ids: string[]): PostRecord[] {
    const byId = new Map(this.getMany('id', ids).map((p) => [p.id, p]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Posts by number, in the order asked; numbers that no longer exist are left out. */
  getManyBySeq(seqs: number[]): PostRecord[] {
    const bySeq = new Map(this.getMany('seq', seqs).map((p) => [p.seq, p]));
    return seqs.flatMap((seq) => bySeq.get(seq) ?? []);
  }

  /**
   * What an `/image/search` item shows of each post (number, id, text, rating, extension and tag
   * names in name order), by number, in the order asked; numbers that no longer exist are left out.
   * One statement for the page: the tags come as a JSON array per row, so no record is built (the
   * full hydration was a fifth of the endpoint's CPU, issue 28).
   */
  imageItemsBySeq(seqs: number[]): ImageItemRow[] {
    if (seqs.length === 0) return [];
    const rows = this.stmt(
      `SELECT p.seq, p.id, p.text, p.rating, p.ext, p.media_kind AS mediaKind, p.duration,
         (SELECT json_group_array(t.name ORDER BY t.name) FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_seq = p.seq) AS tags
       FROM json_each(?) j JOIN posts p ON p.seq = j.value ORDER BY j.key`,
    ).all(JSON.stringify(seqs)) as (Omit<ImageItemRow, 'tagNames' | 'media'> & {
      tags: string;
      mediaKind: PostMedia['kind'];
      duration: number | null;
    })[];
    return rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      text: r.text,
      rating: r.rating,
      ext: r.ext,
      tagNames: JSON.parse(r.tags) as string[],
      ...(r.mediaKind === 'image' ? {} : { media: { kind: r.mediaKind, duration: r.duration } }),
    }));
  }

  private getMany(key: 'id' | 'seq', values: (string | number)[]): PostRecord[] {
    if (values.length === 0) return [];
    return this.hydrate(
      this.stmt(`${SELECT} WHERE p.${key} IN (SELECT value FROM json_each(?))`).all(
        JSON.stringify(values),
      ) as PostRow[],
    );
  }

  count(): number {
    return this.stmt('SELECT count(*) FROM posts').pluck().get() as number;
  }

  /** Newest first, then id (docs/decisions.md §4). */
  list(offset: number, limit: number): PostRecord[] {
    const rows = this.stmt(`${SELECT} ORDER BY p.created_at DESC, p.id LIMIT ? OFFSET ?`).all(
      limit,
      offset,
    ) as PostRow[];
    return this.hydrate(rows);
  }

  /** The highest post number so far (0 when there are none). */
  lastSeq(): number {
    return this.stmt('SELECT coalesce(max(seq), 0) FROM posts').pluck().get() as number;
  }

  /** Id and hash of every post numbered above `seq` (the uploads committed since it was read). */
  hashesAfter(seq: number): { postId: string; hash: string }[] {
    return this.stmt('SELECT id AS postId, hash FROM posts WHERE seq > ?').all(seq) as {
      postId: string;
      hash: string;
    }[];
  }

  /** Every post in number order, a batch at a time (reindex, verify). */
  *batches(size = 1000, afterSeq = 0): Generator<PostRecord[]> {
    const page = this.stmt(`${SELECT} WHERE p.seq > ? ORDER BY p.seq LIMIT ?`);
    let last = afterSeq;
    for (;;) {
      const rows = page.all(last, size) as PostRow[];
      if (rows.length === 0) return;
      last = rows[rows.length - 1].seq;
      yield this.hydrate(rows);
    }
  }

  /** Id and image extension of every post, in number order, read as iterated (backup, restore checks). */
  imageRefs(): IterableIterator<{ id: string; ext: string }> {
    return this.stmt('SELECT id, ext FROM posts ORDER BY seq').iterate() as IterableIterator<{
      id: string;
      ext: string;
    }>;
  }

  /**
   * Id, image extension and number of the posts numbered in (afterSeq, uptoSeq], in number order, `limit` at most
   * (media migrate).
   */
  imageRefsBetween(afterSeq: number, uptoSeq: number, limit: number): { seq: number; id: string; ext: string }[] {
    return this.stmt('SELECT seq, id, ext FROM posts WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?').all(
      afterSeq,
      uptoSeq,
      limit,
    ) as { seq: number; id: string; ext: string }[];
  }

  /** How many posts are numbered in (afterSeq, uptoSeq]. */
  countBetween(afterSeq: number, uptoSeq: number): number {
    return this.stmt('SELECT count(*) FROM posts WHERE seq > ? AND seq <= ?').pluck().get(afterSeq, uptoSeq) as number;
  }

  /** Removes a post by id, outside any change (a backup's own copy of the database); false if absent. */
  deleteById(id: string): boolean {
    return this.stmt('DELETE FROM posts WHERE id = ?').run(id).changes > 0;
  }

  /**
   * The image extension of a post, or undefined when there is no such post (GET /media's redirect: one indexed read).
   */
  imageExt(id: string): string | undefined {
    return this.stmt('SELECT ext FROM posts WHERE id = ?').pluck().get(id) as string | undefined;
  }

  exists(id: string): boolean {
    return this.stmt('SELECT 1 FROM posts WHERE id = ?').pluck().get(id) !== undefined;
  }

  /** The ids among `ids` that are posts (verify: which index documents are orphans). */
  existingIds(ids: string[]): Set<string> {
    if (ids.length === 0) return new Set();
    return new Set(
      this.stmt('SELECT id FROM posts WHERE id IN (SELECT value FROM json_each(?))')
        .pluck()
        .all(JSON.stringify(ids)) as string[],
    );
  }

  /** Post numbers of everything a user uploaded (they become disowned when the user goes). */
  seqsByUploader(uploaderId: number): number[] {
    return this.stmt('SELECT seq FROM posts WHERE uploader_id = ? ORDER BY seq').pluck().all(uploaderId) as number[];
  }

  /** Sets the version to `to` if it is still `from`; false when the post changed (or went) meanwhile. */
  raiseVersion(id: string, from: number, to: number): boolean {
    return this.stmt('UPDATE posts SET version = ? WHERE id = ? AND version = ?').run(to, id, from).changes === 1;
  }

  insert(post: NewPost): number {
    return this.writes.insert(post);
  }

  /**
   * Posts written in bulk with their own last-change time and version (the seeder, through
   * WriteTransaction.seeded): read lazily, so a million need not sit in memory.
   */
  insertSeeded(posts: Iterable<NewPost & { updatedAt: string; version: number }>): void {
    this.writes.insertSeeded(posts);
  }

  /** Creates the tags among `names` that do not exist yet, in the order given (their ids follow it). */
  ensureTags(names: Iterable<string>): void {
    this.writes.ensureTags(names);
  }

  /** Creates the tags among `tags` that do not exist yet, with their category (docs/decisions.md §22). */
  ensureTagsWithCategory(tags: Iterable<{ name: string; category: TagCategory }>): void {
    this.writes.ensureTagsWithCategory(tags);
  }

  /** Makes the post's tags exactly `names` (resolved), creating tags that do not exist yet. */
  setTags(seq: number, names: string[]): void {
    this.writes.setTags(seq, names);
  }

  updateFields(seq: number, fields: { text: string; rating: Rating; updatedAt: string }): void {
    this.db
      .prepare('UPDATE posts SET text = ?, rating = ?, updated_at = ?, version = version + 1 WHERE seq = ?')
      .run(fields.text, fields.rating, fields.updatedAt, seq);
  }

  bumpVersion(seq: number): void {
    this.stmt('UPDATE posts SET version = version + 1 WHERE seq = ?').run(seq);
  }

  delete(seq: number): void {
    this.stmt('DELETE FROM posts WHERE seq = ?').run(seq);
  }
}
