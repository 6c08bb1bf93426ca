import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/**
 * The stored files' MD5 (lower-case hex) and size in bytes, posts.md5 and posts.file_size
 * (docs/decisions.md §20). Set at upload; `md5 IS NULL` marks a post the backfill has not reached.
 * Kept out of the post record: they are no part of a post's history or of its webhook payloads.
 */
export class FileFacts {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** The numbers of the posts whose stored file has this MD5 (lower-case hex), ascending. */
  seqsByMd5(md5: string): number[] {
    return this.stmt('SELECT seq FROM posts WHERE md5 = ? ORDER BY seq').pluck().all(md5) as number[];
  }

  /** The stored files' MD5 and size by post number (null while the backfill has not reached a post). */
  of(seqs: number[]): Map<number, { md5: string | null; fileSize: number | null }> {
    const rows = this.stmt(
      'SELECT seq, md5, file_size AS fileSize FROM posts WHERE seq IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(seqs)) as { seq: number; md5: string | null; fileSize: number | null }[];
    return new Map(rows.map(({ seq, ...f }) => [seq, f]));
  }

  /** Posts numbered above `afterSeq` whose file facts are missing, in number order (the backfill). */
  missing(afterSeq: number, limit: number): { seq: number; id: string; ext: string }[] {
    return this.stmt('SELECT seq, id, ext FROM posts WHERE md5 IS NULL AND seq > ? ORDER BY seq LIMIT ?').all(
      afterSeq,
      limit,
    ) as { seq: number; id: string; ext: string }[];
  }

  /** How many posts still lack their file facts. */
  countMissing(): number {
    return this.stmt('SELECT count(*) FROM posts WHERE md5 IS NULL').pluck().get() as number;
  }

  /** Records every post above `afterSeq` still without file facts as having no file (the seeder's posts). */
  markGoneAbove(afterSeq: number): number {
    return this.stmt("UPDATE posts SET md5 = '', file_size = 0 WHERE md5 IS NULL AND seq > ?").run(afterSeq).changes;
  }

  /** Records a stored file's MD5 and size; false when the post went. */
  set(seq: number, md5: string, fileSize: number): boolean {
    return this.stmt('UPDATE posts SET md5 = ?, file_size = ? WHERE seq = ?').run(md5, fileSize, seq).changes > 0;
  }
}
