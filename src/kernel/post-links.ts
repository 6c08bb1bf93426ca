import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/**
 * How posts are linked (docs/decisions.md §19): a post's parent and children, and the post numbers
 * behind UUIDs that pools list. SQL on `posts`, so the kernel's; PostRepository exposes it as `links`.
 * Callers own the transactions.
 */
export class PostLinks {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** The numbers of the posts among `ids` (UUIDs) that exist, by id. */
  seqsOfIds(ids: readonly string[]): Map<string, number> {
    if (ids.length === 0) return new Map();
    const rows = this.stmt('SELECT id, seq FROM posts WHERE id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(ids),
    ) as { id: string; seq: number }[];
    return new Map(rows.map((r) => [r.id, r.seq]));
  }

  /** The UUIDs of the posts among `seqs` that exist, by number. */
  idsOfSeqs(seqs: readonly number[]): Map<number, string> {
    if (seqs.length === 0) return new Map();
    const rows = this.stmt('SELECT id, seq FROM posts WHERE seq IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(seqs),
    ) as { id: string; seq: number }[];
    return new Map(rows.map((r) => [r.seq, r.id]));
  }

  /** Sets a post's source and parent (docs/decisions.md §19), inside an edit that called updateFields. */
  setOrigin(seq: number, origin: { source: string; parentSeq: number | null }): void {
    this.stmt('UPDATE posts SET source = ?, parent_seq = ? WHERE seq = ?').run(origin.source, origin.parentSeq, seq);
  }

  /** The numbers of a post's children, in number order (docs/decisions.md §19). */
  childSeqs(parentSeq: number, offset = 0, limit = Number.MAX_SAFE_INTEGER): number[] {
    return this.stmt('SELECT seq FROM posts WHERE parent_seq = ? ORDER BY seq LIMIT ? OFFSET ?')
      .pluck()
      .all(parentSeq, limit, offset) as number[];
  }

  childCount(parentSeq: number): number {
    return this.stmt('SELECT count(*) FROM posts WHERE parent_seq = ?').pluck().get(parentSeq) as number;
  }

  /** The parent's number of each post up the chain from `seq` (itself first), at most `max` steps. */
  ancestry(seq: number, max: number): number[] {
    return this.stmt(
      `WITH RECURSIVE up(seq, depth) AS (SELECT ?, 0 UNION ALL
         SELECT p.parent_seq, up.depth + 1 FROM up JOIN posts p ON p.seq = up.seq
         WHERE p.parent_seq IS NOT NULL AND up.depth < ?)
       SELECT seq FROM up ORDER BY depth`,
    )
      .pluck()
      .all(seq, max) as number[];
  }

  /** The number the next post inserted will get (AUTOINCREMENT: past every number ever used). */
  nextSeq(): number {
    return (
      (this.stmt(
        "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'posts'), 0), coalesce((SELECT max(seq) FROM posts), 0))",
      )
        .pluck()
        .get() as number) + 1
    );
  }
}
