import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { Commenters } from '../kernel/post-people.ts';

/** A comment as stored, with its post's UUID joined in (docs/decisions.md §18). */
export interface CommentRow {
  id: number;
  postSeq: number;
  postId: string;
  /** null once the account is deleted */
  authorId: number | null;
  body: string;
  createdAt: string;
  updatedAt: string;
  edited: boolean;
  /** docs/decisions.md §22: the author's name on the board an import brought the comment from */
  originAuthor: string | null;
}

const SELECT = `SELECT c.id, c.post_seq AS postSeq, p.id AS postId, c.author_id AS authorId, c.body,
  c.created_at AS createdAt, c.updated_at AS updatedAt, c.edited, c.origin_author AS originAuthor
  FROM comments c JOIN posts p ON p.seq = c.post_seq`;

type Raw = Omit<CommentRow, 'edited'> & { edited: number };
const row = (r: Raw): CommentRow => ({ ...r, edited: r.edited === 1 });

/**
 * SQLite access for comments (docs/decisions.md §18). A post's count (posts.comments, kept by triggers,
 * migration 018) and its commenters are part of the post record and of its search document: the kernel
 * reads them through `Commenters`, which this implements. Callers own the transactions.
 */
export class CommentRepository implements Commenters {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** The distinct commenters' user ids of each post, ascending (the search document's `commented_by`). */
  commentersOf(seqs: readonly number[]): Map<number, number[]> {
    const out = new Map<number, number[]>(seqs.map((s) => [s, []]));
    if (seqs.length === 0) return out;
    const rows = this.stmt(
      `SELECT DISTINCT post_seq AS seq, author_id AS userId FROM comments
       WHERE post_seq IN (SELECT value FROM json_each(?)) AND author_id IS NOT NULL ORDER BY post_seq, author_id`,
    ).all(JSON.stringify(seqs)) as { seq: number; userId: number }[];
    for (const r of rows) out.get(r.seq)?.push(r.userId);
    return out;
  }

  insert(postSeq: number, authorId: number, body: string, at: string): number {
    const info = this.stmt(
      'INSERT INTO comments (post_seq, author_id, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ).run(postSeq, authorId, body, at, at);
    return Number(info.lastInsertRowid);
  }

  /**
   * A comment an import brought (docs/decisions.md §22): by nobody here, its author's name there kept as
   * text, its date there; `key` (site and comment id) makes a second import of it do nothing.
   */
  insertImported(postSeq: number, c: { key: string; author: string | null; body: string; createdAt: string }): boolean {
    return (
      this.stmt(
        `INSERT INTO comments (post_seq, author_id, body, created_at, updated_at, origin_author, origin_key)
       VALUES (?, NULL, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ).run(postSeq, c.body, c.createdAt, c.createdAt, c.author, c.key).changes === 1
    );
  }

  /** Comments written in bulk (the seeder); the counts follow by trigger. */
  insertMany(rows: Iterable<{ postSeq: number; authorId: number; body: string; createdAt: string }>): void {
    const add = this.stmt(
      'INSERT INTO comments (post_seq, author_id, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    for (const r of rows) add.run(r.postSeq, r.authorId, r.body, r.createdAt, r.createdAt);
  }

  get(id: number): CommentRow | undefined {
    const r = this.stmt(`${SELECT} WHERE c.id = ?`).get(id) as Raw | undefined;
    return r && row(r);
  }

  setBody(id: number, body: string, at: string): void {
    this.stmt('UPDATE comments SET body = ?, updated_at = ?, edited = 1 WHERE id = ?').run(body, at, id);
  }

  delete(id: number): boolean {
    return this.stmt('DELETE FROM comments WHERE id = ?').run(id).changes > 0;
  }

  /** A post's comments, oldest first. */
  ofPost(postSeq: number, offset: number, limit: number): CommentRow[] {
    return (
      this.stmt(`${SELECT} WHERE c.post_seq = ? ORDER BY c.id LIMIT ? OFFSET ?`).all(postSeq, limit, offset) as Raw[]
    ).map(row);
  }

  /** The newest comments site-wide, or one author's; ids grow with time, so newest is highest id. */
  newest(authorId: number | undefined, offset: number, limit: number): CommentRow[] {
    const rows =
      authorId === undefined
        ? this.stmt(`${SELECT} ORDER BY c.id DESC LIMIT ? OFFSET ?`).all(limit, offset)
        : this.stmt(`${SELECT} WHERE c.author_id = ? ORDER BY c.id DESC LIMIT ? OFFSET ?`).all(authorId, limit, offset);
    return (rows as Raw[]).map(row);
  }

  count(authorId?: number): number {
    return (
      authorId === undefined
        ? this.stmt('SELECT count(*) FROM comments').pluck().get()
        : this.stmt('SELECT count(*) FROM comments WHERE author_id = ?').pluck().get(authorId)
    ) as number;
  }

  /** Moves every comment of post `from` to post `into` (a merge, docs/decisions.md §15); counts follow by trigger. */
  move(from: number, into: number): number {
    return this.stmt('UPDATE comments SET post_seq = ? WHERE post_seq = ?').run(into, from).changes;
  }

  /** Posts a user commented on (their documents change when the user goes). */
  seqsCommentedBy(userId: number): number[] {
    return this.stmt('SELECT DISTINCT post_seq FROM comments WHERE author_id = ? ORDER BY post_seq')
      .pluck()
      .all(userId) as number[];
  }
}
