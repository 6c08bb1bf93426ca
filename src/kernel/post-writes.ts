import type { Db } from '../db/sqlite.ts';
import type { Statement } from '../db/statements.ts';
import { foldTag } from './tag-fold.ts';
import type { TagRules } from './tag-rules.ts';
import type { PostMedia, PostRecord } from './post-record.ts';
import { encodeDihedral, type DihedralSet } from './dihedral-hashes.ts';

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
  /** docs/decisions.md §21: absent for a still image */
  media?: Omit<PostMedia, 'bytes'>;
  /** docs/decisions.md §24: the hashes under the eight symmetries; absent, the backfill computes them */
  dihedral?: DihedralSet;
};

/**
 * New post rows and the links to their tags (PostRepository's inserts and tag writes). Every tag set
 * is resolved through the tag rules before it is linked. Callers own the transactions.
 */
export class PostWrites {
  constructor(
    private readonly db: Db,
    /** the repository's statement cache, shared so that a statement is prepared once */
    private readonly stmt: (sql: string) => Statement,
    private readonly tagRules: TagRules,
  ) {}

  insert(post: NewPost): number {
    const info = this.db
      .prepare(
        `INSERT INTO posts (id, text, rating, ext, mime, width, height, hash, uploader_id, aggr, created_at, updated_at, version,
           source, parent_seq, md5, file_size, media_kind, duration, frame_count, has_audio, dihedral)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        post.media?.kind ?? 'image',
        post.media?.duration ?? null,
        post.media?.frames ?? null,
        post.media?.hasAudio ? 1 : 0,
        post.dihedral ? encodeDihedral(post.dihedral) : null,
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
         source, parent_seq, media_kind, duration, frame_count, has_audio)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        p.media?.kind ?? 'image',
        p.media?.duration ?? null,
        p.media?.frames ?? null,
        p.media?.hasAudio ? 1 : 0,
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

  /**
   * Creates the tags among `tags` that do not exist yet with the category given (docs/decisions.md §22: an
   * existing tag keeps the board's own category).
   */
  ensureTagsWithCategory(tags: Iterable<{ name: string; category: string }>): void {
    const create = this.stmt(
      'INSERT INTO tags (name, folded, category) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    );
    for (const t of tags) create.run(t.name, foldTag(t.name), t.category);
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
}
