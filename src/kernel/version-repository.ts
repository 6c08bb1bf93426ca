import type { Db } from '../db/sqlite.ts';
import type { Rating } from './post-record.ts';
import { namesFor, type UserNames } from './user-names.ts';

/** A version as stored; `tags` in the order they were written (readers sort). */
export interface VersionRecord {
  number: number;
  text: string;
  rating: Rating;
  tags: string[];
  editor: { id: number; name: string } | null;
  createdAt: string;
  /** docs/decisions.md §19 */
  source: string;
  parentId: string | null;
}

export interface NewVersion {
  text: string;
  rating: Rating;
  tags: string[];
  /** docs/decisions.md §19; '' and null when absent */
  source?: string;
  parentId?: string | null;
  editorId: number | null;
  createdAt: string;
}

interface VersionRow {
  number: number;
  text: string;
  rating: Rating;
  tags: string;
  editor_id: number | null;
  created_at: string;
  source: string;
  parent_id: string | null;
}

const SELECT =
  'SELECT v.number, v.text, v.rating, v.tags, v.editor_id, v.created_at, v.source, v.parent_id FROM post_versions v';

/** SQLite access for post_versions. Callers own the transactions. */
export class VersionRepository {
  constructor(
    private readonly db: Db,
    /** editors' names (the users table is the accounts') */
    private readonly users: UserNames,
  ) {}

  private hydrate(rows: VersionRow[]): VersionRecord[] {
    const names = namesFor(
      this.users,
      rows.map((r) => r.editor_id),
    );
    return rows.map((r) => {
      const name = r.editor_id === null ? undefined : names.get(r.editor_id);
      return {
        number: r.number,
        text: r.text,
        rating: r.rating,
        tags: JSON.parse(r.tags) as string[],
        editor: r.editor_id !== null && name !== undefined ? { id: r.editor_id, name } : null,
        createdAt: r.created_at,
        source: r.source,
        parentId: r.parent_id,
      };
    });
  }

  /**
   * Gives every post without history a version 1 from its current state (no known editor, dated at
   * its last change): what migration 007 did for older posts, for posts written in bulk (the seeder).
   */
  backfillFirstVersions(): number {
    return this.db
      .prepare(
        `INSERT INTO post_versions (post_seq, number, text, rating, tags, editor_id, created_at, source, parent_id)
         SELECT p.seq, 1, p.text, p.rating,
           (SELECT json_group_array(t.name ORDER BY t.name) FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_seq = p.seq),
           NULL, p.updated_at, p.source, (SELECT pp.id FROM posts pp WHERE pp.seq = p.parent_seq)
         FROM posts p WHERE NOT EXISTS (SELECT 1 FROM post_versions v WHERE v.post_seq = p.seq)`,
      )
      .run().changes;
  }

  /** Appends the post's next version and returns its number. */
  append(postSeq: number, v: NewVersion): number {
    return this.db
      .prepare(
        `INSERT INTO post_versions (post_seq, number, text, rating, tags, editor_id, created_at, source, parent_id)
         SELECT ?, coalesce(max(number), 0) + 1, ?, ?, ?, ?, ?, ?, ? FROM post_versions WHERE post_seq = ?
         RETURNING number`,
      )
      .pluck()
      .get(
        postSeq,
        v.text,
        v.rating,
        JSON.stringify(v.tags),
        v.editorId,
        v.createdAt,
        v.source ?? '',
        v.parentId ?? null,
        postSeq,
      ) as number;
  }

  count(postSeq: number): number {
    return this.db.prepare('SELECT count(*) FROM post_versions WHERE post_seq = ?').pluck().get(postSeq) as number;
  }

  /** Newest first. */
  page(postSeq: number, offset: number, limit: number): VersionRecord[] {
    return this.hydrate(
      this.db
        .prepare(`${SELECT} WHERE v.post_seq = ? ORDER BY v.number DESC LIMIT ? OFFSET ?`)
        .all(postSeq, limit, offset) as VersionRow[],
    );
  }

  get(postSeq: number, number: number): VersionRecord | undefined {
    const row = this.db.prepare(`${SELECT} WHERE v.post_seq = ? AND v.number = ?`).get(postSeq, number) as
      | VersionRow
      | undefined;
    return row && this.hydrate([row])[0];
  }
}
