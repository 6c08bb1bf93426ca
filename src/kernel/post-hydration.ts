import type { Statement } from '../db/statements.ts';
import type { PostMedia, PostRecord, Tag } from './post-record.ts';
import { namesFor, type UserNames } from './user-names.ts';
import type { Commenters, Favoriters } from './post-people.ts';
import type { PoolMembership } from './pool-membership.ts';
import type { PostOrigins } from './post-origins.ts';
import { TAG_ORDER } from './tag-category.ts';

/** A post row as read: the record without its uploader's name and tags, columns named as the record names them. */
export type PostRow = Omit<
  PostRecord,
  'uploaderName' | 'tags' | 'favoritedBy' | 'commentedBy' | 'pools' | 'media' | 'origins'
> & {
  mediaKind: PostMedia['kind'];
  duration: number | null;
  frameCount: number | null;
  hasAudio: number;
  fileSize: number | null;
};

/** Every post read starts here, then adds its WHERE/ORDER BY; the rows go through PostHydration.hydrate. */
export const POST_SELECT = `SELECT p.seq, p.id, p.text, p.rating, p.ext, p.mime, p.width, p.height, p.hash, p.uploader_id AS uploaderId,
  p.aggr, p.created_at AS createdAt, p.updated_at AS updatedAt, p.version, p.favorites,
  p.upvotes, p.downvotes, p.comments,
  p.source, p.parent_seq AS parentSeq, (SELECT pp.id FROM posts pp WHERE pp.seq = p.parent_seq) AS parentId,
  p.media_kind AS mediaKind, p.duration, p.frame_count AS frameCount, p.has_audio AS hasAudio, p.file_size AS fileSize,
  p.notes, p.last_noted_at AS lastNotedAt
  FROM posts p`;

/** What a record holds besides its row: the tables the hydration reads once per page of rows. */
export interface RecordParts {
  users: UserNames;
  favorites: Favoriters;
  comments: Commenters;
  pools: PoolMembership;
  origins: PostOrigins;
}

/** Post rows made whole records: one read per table for the whole page, never one per post. */
export class PostHydration {
  constructor(
    /** the repository's statement cache, shared so that a statement is prepared once */
    private readonly stmt: (sql: string) => Statement,
    private readonly parts: RecordParts,
  ) {}

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

  hydrate(rows: PostRow[]): PostRecord[] {
    const tags = this.tagsOf(rows.map((r) => r.seq));
    const names = namesFor(
      this.parts.users,
      rows.map((r) => r.uploaderId),
    );
    // Only posts someone favorited need the second read.
    const favoriters = this.parts.favorites.favoritersOf(rows.filter((r) => r.favorites > 0).map((r) => r.seq));
    const commenters = this.parts.comments.commentersOf(rows.filter((r) => r.comments > 0).map((r) => r.seq));
    const places = this.parts.pools.placesOf(rows.map((r) => r.seq));
    const origins = this.parts.origins.of(rows.map((r) => r.seq));
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
        mediaKind,
        duration,
        frameCount,
        hasAudio,
        fileSize,
        notes,
        lastNotedAt,
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
        media: { kind: mediaKind, duration, frames: frameCount, hasAudio: hasAudio === 1, bytes: fileSize },
        origins: origins.get(r.seq) ?? [],
        notes,
        lastNotedAt,
      }),
    );
  }
}
