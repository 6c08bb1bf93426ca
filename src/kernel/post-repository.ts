import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { foldTag } from './tag-fold.ts';
import { TagRules } from './tag-rules.ts';
import type { ImageItemRow, PostRecord, Rating, Tag } from './post-record.ts';
import { namesFor, type UserNames } from './user-names.ts';
import { FavoriteRepository } from './favorite-repository.ts';
import { CommentRepository } from './comment-repository.ts';
import { VoteRepository } from './vote-repository.ts';
import { RobustDescriptors } from './robust-descriptors.ts';
import { PoolMembership } from './pool-membership.ts';
import { PostLinks } from './post-links.ts';
import { TAG_ORDER } from './tag-category.ts';
import { FileFacts } from './file-facts.ts';

/** A post row as read: the record without its uploader's name and tags, columns named as the record names them. */
type PostRow = Omit<PostRecord, 'uploaderName' | 'tags' | 'favoritedBy' | 'commentedBy' | 'pools'>;

const SELECT = `SELECT p.seq, p.id, p.text, p.rating, p.ext, p.mime, p.width, p.height, p.hash, p.uploader_id AS uploaderId,
  p.aggr, p.created_at AS createdAt, p.updated_at AS updatedAt, p.version, p.favorites,
  p.upvotes, p.downvotes, p.comments,
  p.source, p.parent_seq AS parentSeq, (SELECT pp.id FROM posts pp WHERE pp.seq = p.parent_seq) AS parentId
  FROM posts p`;

/** A post to insert: what the uploader and the image give; number, version and times are the table's. */
export type NewPost = Pick<
  PostRecord,
  'id' | 'text' | 'rating' | 'ext' | 'mime' | 'width' | 'height' | 'hash' | 'uploaderId' | 'createdAt'
> & {
  aggr?: number | null;
  tags: string[];
  /** docs/decisions.md §19; '' and null when absent */
  source?: string;
  parentSeq?: number | null;
  /** the stored file's MD5 (hex) and size (docs/decisions.md §20); a backfill fills them when absent */
  md5?: string;
  fileSize?: number;
};

/** SQLite access for posts and their tags. Callers own the transactions. */
export class PostRepository {
  /** A post read is in nearly every request: its statements are prepared once. */
  private readonly stmt: (sql: string) => Statement;
  /** a post's favoriters are part of its record (the search document's `favorited_by`) */
  readonly favorites: FavoriteRepository;
  /** docs/decisions.md §18: a post's commenters and vote counts are part of its record too */
  readonly comments: CommentRepository;
  readonly votes: VoteRepository;
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

  constructor(
    private readonly db: Db,
    /** uploaders' names (the users table is the accounts') */
    private readonly users: UserNames,
  ) {
    this.stmt = statementCache(db);
    this.favorites = new FavoriteRepository(db);
    this.comments = new CommentRepository(db);
    this.votes = new VoteRepository(db);
    this.tagRules = new TagRules(db);
    this.robust = new RobustDescriptors(db);
    this.pools = new PoolMembership(db);
    this.links = new PostLinks(db);
    this.files = new FileFacts(db);
  }

  /** The tag set a write of `names` stores: aliases replaced by their targets, implications added. */
  resolveTags(names: readonly string[]): string[] {
    return this.tagRules.resolve(names);
  }

  /** Lists of keys go in as one JSON array: one statement for any count (`IN (SELECT value FROM json_each(?))`). */
  private tagsOf(seqs: number[]): Map<number, Tag[]> {
    const out = new Map<number, Tag[]>(seqs.map((s) => [s, []]));
    if (seqs.length === 0) return out;
    const rows = this.stmt(
      `SELECT pt.post_seq AS seq, t.id, t.name, t.category FROM post_tags pt JOIN tags t ON t.id = pt.tag_id
       WHERE pt.post_seq IN (SELECT value FROM json_each(?)) ORDER BY ${TAG_ORDER}`,
    ).all(JSON.stringify(seqs)) as (Tag & { seq: number })[];
    for (const r of rows) out.get(r.seq)!.push({ id: r.id, name: r.name, category: r.category });
    return out;
  }

  private hydrate(rows: PostRow[]): PostRecord[] {
    const tags = this.tagsOf(rows.map((r) => r.seq));
    const names = namesFor(
      this.users,
      rows.map((r) => r.uploaderId),
    );
    // Only posts someone favorited need the second read.
    const favoriters = this.favorites.favoritersOf(rows.filter((r) => r.favorites > 0).map((r) => r.seq));
    const commenters = this.comments.commentersOf(rows.filter((r) => r.comments > 0).map((r) => r.seq));
    const places = this.pools.placesOf(rows.map((r) => r.seq));
    // Field order as the record declares it: records are stored as JSON in outbox rows.
    return rows.map(
      ({
        aggr,
        createdAt,
        updatedAt,
        version,
        favorites,
        upvotes,
        downvotes,
        comments,
        source,
        parentSeq,
        parentId,
        ...r
      }) => ({
        ...r,
        uploaderName: r.uploaderId === null ? null : (names.get(r.uploaderId) ?? null),
        aggr,
        createdAt,
        updatedAt,
        version,
        tags: tags.get(r.seq) ?? [],
        favorites,
        favoritedBy: favoriters.get(r.seq) ?? [],
        upvotes,
        downvotes,
        comments,
        commentedBy: commenters.get(r.seq) ?? [],
        source,
        parentSeq,
        parentId,
        pools: places.get(r.seq) ?? [],
      }),
    );
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
      `SELECT p.seq, p.id, p.text, p.rating, p.ext,
         (SELECT json_group_array(t.name ORDER BY t.name) FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_seq = p.seq) AS tags
       FROM json_each(?) j JOIN posts p ON p.seq = j.value ORDER BY j.key`,
    ).all(JSON.stringify(seqs)) as (Omit<ImageItemRow, 'tagNames'> & { tags: string })[];
    return rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      text: r.text,
      rating: r.rating,
      ext: r.ext,
      tagNames: JSON.parse(r.tags) as string[],
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
    const info = this.db
      .prepare(
        `INSERT INTO posts (id, text, rating, ext, mime, width, height, hash, uploader_id, aggr, created_at, updated_at, version,
           source, parent_seq, md5, file_size)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
      )
      .run(
        post.id,
        post.text,
        post.rating,
        post.ext,
        post.mime,
        post.width,
        post.height,
        post.hash,
        post.uploaderId,
        post.aggr ?? null,
        post.createdAt,
        post.createdAt,
        post.source ?? '',
        post.parentSeq ?? null,
        post.md5 ?? null,
        post.fileSize ?? null,
      );
    const seq = Number(info.lastInsertRowid);
    this.addTags(seq, post.tags);
    return seq;
  }

  /**
   * Posts written in bulk with their own last-change time and version (the seeder, through
   * WriteTransaction.seeded): read lazily, so a million need not sit in memory.
   */
  insertSeeded(posts: Iterable<NewPost & { updatedAt: string; version: number }>): void {
    const insert = this.stmt(
      `INSERT INTO posts (id, text, rating, ext, mime, width, height, hash, uploader_id, aggr, created_at, updated_at, version,
         source, parent_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const p of posts) {
      const info = insert.run(
        p.id,
        p.text,
        p.rating,
        p.ext,
        p.mime,
        p.width,
        p.height,
        p.hash,
        p.uploaderId,
        p.aggr ?? null,
        p.createdAt,
        p.updatedAt,
        p.version,
        p.source ?? '',
        p.parentSeq ?? null,
      );
      this.addTags(Number(info.lastInsertRowid), p.tags);
    }
  }

  /** Creates the tags among `names` that do not exist yet, in the order given (their ids follow it). */
  ensureTags(names: Iterable<string>): void {
    // folded: the case-insensitive key the tag autocomplete searches (src/tags).
    const create = this.stmt('INSERT INTO tags (name, folded) VALUES (?, ?) ON CONFLICT (name) DO NOTHING');
    for (const name of names) create.run(name, foldTag(name));
  }

  /** Makes the post's tags exactly `names` (resolved), creating tags that do not exist yet. */
  setTags(seq: number, names: string[]): void {
    this.stmt('DELETE FROM post_tags WHERE post_seq = ?').run(seq);
    this.addTags(seq, names);
  }

  private addTags(seq: number, names: readonly string[]): void {
    const link = this.stmt('INSERT INTO post_tags (post_seq, tag_id) SELECT ?, id FROM tags WHERE name = ?');
    // The one place tags are linked: every write path stores the resolved set (docs/decisions.md §15).
    for (const name of this.tagRules.resolve(names)) {
      this.ensureTags([name]);
      link.run(seq, name);
    }
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
