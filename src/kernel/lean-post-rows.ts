import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { PoolPlace, PostMedia, PostRecord, Tag, TagCategory } from './post-record.ts';
import { TAG_ORDER } from './tag-category.ts';

/** A post as the Danbooru API shows it (src/booru/view.ts), read in one statement. */
export type LeanPost = Pick<
  PostRecord,
  | 'seq'
  | 'id'
  | 'ext'
  | 'rating'
  | 'width'
  | 'height'
  | 'uploaderId'
  | 'createdAt'
  | 'updatedAt'
  | 'favorites'
  | 'upvotes'
  | 'downvotes'
  | 'source'
  | 'parentSeq'
> & {
  tags: Pick<Tag, 'name' | 'category'>[];
  pools: Pick<PoolPlace, 'pool'>[];
  /** the stored file's; null while the backfill has not reached the post, '' for a file found gone */
  md5: string | null;
  fileSize: number | null;
  hasChildren: boolean;
  /** docs/decisions.md §23: when its newest note was written; null without notes */
  lastNotedAt: string | null;
  /** docs/decisions.md §21 */
  mediaKind: PostMedia['kind'];
  duration: number | null;
  hasAudio: boolean;
};

/**
 * What a Danbooru post shows of each post (docs/decisions.md §20), by number, in the order asked;
 * numbers that no longer exist are left out. One statement for the page, tags (in a post's order),
 * pools and `has_children` as columns of each row, where a full post record takes seven (the lean
 * read is what keeps `/posts.json` near `/image/search`: bench/notes/booru.md).
 */
export class LeanPostRows {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  bySeq(seqs: readonly number[]): LeanPost[] {
    if (seqs.length === 0) return [];
    const rows = this.stmt(
      `SELECT p.seq, p.id, p.ext, p.rating, p.width, p.height, p.uploader_id AS uploaderId,
         p.created_at AS createdAt, p.updated_at AS updatedAt, p.favorites, p.upvotes, p.downvotes,
         p.source, p.parent_seq AS parentSeq, p.md5, p.file_size AS fileSize, p.last_noted_at AS lastNotedAt,
         p.media_kind AS mediaKind, p.duration, p.has_audio AS hasAudio,
         EXISTS (SELECT 1 FROM posts c WHERE c.parent_seq = p.seq) AS hasChildren,
         (SELECT json_group_array(json_array(t.name, t.category) ORDER BY ${TAG_ORDER})
            FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_seq = p.seq) AS tags,
         (SELECT json_group_array(pp.pool_id ORDER BY pp.pool_id) FROM pool_posts pp WHERE pp.post_seq = p.seq) AS pools
       FROM json_each(?) j JOIN posts p ON p.seq = j.value ORDER BY j.key`,
    ).all(JSON.stringify(seqs)) as (Omit<LeanPost, 'tags' | 'pools' | 'hasChildren' | 'hasAudio'> & {
      hasChildren: number;
      hasAudio: number;
      tags: string;
      pools: string;
    })[];
    return rows.map((r) => ({
      ...r,
      hasChildren: r.hasChildren === 1,
      hasAudio: r.hasAudio === 1,
      tags: (JSON.parse(r.tags) as [string, TagCategory][]).map(([name, category]) => ({ name, category })),
      pools: (JSON.parse(r.pools) as number[]).map((pool) => ({ pool })),
    }));
  }
}
