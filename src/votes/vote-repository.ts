import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { Voters } from '../kernel/post-people.ts';

export type VoteValue = 1 | -1;

/**
 * SQLite access for votes (docs/decisions.md §18): one per account and post. The counts (posts.upvotes,
 * posts.downvotes, kept by triggers, migration 018) are columns of the post row; the kernel reads the
 * posts a user voted on through `Voters`, which this implements. Callers own the transactions.
 */
export class VoteRepository implements Voters {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** The account's vote on the post, 0 when none. */
  valueOf(userId: number, postSeq: number): VoteValue | 0 {
    return ((this.stmt('SELECT value FROM votes WHERE user_id = ? AND post_seq = ?').pluck().get(userId, postSeq) as
      | VoteValue
      | undefined) ?? 0) as VoteValue | 0;
  }

  /** Adds or replaces the vote; true when something changed. */
  put(userId: number, postSeq: number, value: VoteValue, at: string): boolean {
    return (
      this.stmt(
        `INSERT INTO votes (user_id, post_seq, value, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, post_seq) DO UPDATE SET value = excluded.value, created_at = excluded.created_at
         WHERE value <> excluded.value`,
      ).run(userId, postSeq, value, at).changes > 0
    );
  }

  /** True when there was one to remove. */
  remove(userId: number, postSeq: number): boolean {
    return this.stmt('DELETE FROM votes WHERE user_id = ? AND post_seq = ?').run(userId, postSeq).changes > 0;
  }

  /** Votes written in bulk (the seeder); an account's second vote on a post replaces the first. */
  insertMany(rows: Iterable<{ userId: number; postSeq: number; value: VoteValue; createdAt: string }>): void {
    const add = this.stmt(
      `INSERT INTO votes (user_id, post_seq, value, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, post_seq) DO UPDATE SET value = excluded.value`,
    );
    for (const r of rows) add.run(r.userId, r.postSeq, r.value, r.createdAt);
  }

  /**
   * Moves every vote of post `from` to post `into` (a merge, docs/decisions.md §15): an account that voted
   * on both keeps its vote on `into`; the counts follow by trigger.
   */
  move(from: number, into: number): void {
    const rows = this.stmt(
      'SELECT user_id AS userId, value, created_at AS createdAt FROM votes WHERE post_seq = ?',
    ).all(from) as { userId: number; value: VoteValue; createdAt: string }[];
    this.stmt('DELETE FROM votes WHERE post_seq = ?').run(from);
    const add = this.stmt('INSERT OR IGNORE INTO votes (user_id, post_seq, value, created_at) VALUES (?, ?, ?, ?)');
    for (const r of rows) add.run(r.userId, into, r.value, r.createdAt);
  }

  /** Posts a user voted on (their documents change when the user goes). */
  seqsVotedBy(userId: number): number[] {
    return this.stmt('SELECT post_seq FROM votes WHERE user_id = ? ORDER BY post_seq').pluck().all(userId) as number[];
  }
}
