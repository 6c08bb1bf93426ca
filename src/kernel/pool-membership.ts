import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { PoolPlace } from './post-record.ts';

/**
 * SQLite access for `pool_posts` (docs/decisions.md §19): which posts a pool holds, in what order. The
 * kernel owns the table because a post's pools and its position in each are part of its record and
 * of its search document (orderBy pool sorts on them). The pools feature (src/pools/) owns the pools
 * themselves and their history. Callers own the transactions.
 */
export class PoolMembership {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** The pools of each post, by pool id (the search document's `pools`). */
  placesOf(seqs: readonly number[]): Map<number, PoolPlace[]> {
    const out = new Map<number, PoolPlace[]>(seqs.map((s) => [s, []]));
    if (seqs.length === 0) return out;
    const rows = this.stmt(
      `SELECT post_seq AS seq, pool_id AS pool, position FROM pool_posts
       WHERE post_seq IN (SELECT value FROM json_each(?)) ORDER BY post_seq, pool_id`,
    ).all(JSON.stringify(seqs)) as { seq: number; pool: number; position: number }[];
    for (const r of rows) out.get(r.seq)?.push({ pool: r.pool, position: r.position });
    return out;
  }

  /** A pool's posts in order: number and position. */
  orderOf(poolId: number): { seq: number; position: number }[] {
    return this.stmt('SELECT post_seq AS seq, position FROM pool_posts WHERE pool_id = ? ORDER BY position').all(
      poolId,
    ) as { seq: number; position: number }[];
  }

  /** The pool ids a post is in. */
  poolsOf(seq: number): number[] {
    return this.stmt('SELECT pool_id FROM pool_posts WHERE post_seq = ? ORDER BY pool_id').pluck().all(seq) as number[];
  }

  /** Makes the pool's order exactly `seqs`, at positions 0, 1, 2... */
  replace(poolId: number, seqs: readonly number[]): void {
    this.stmt('DELETE FROM pool_posts WHERE pool_id = ?').run(poolId);
    const insert = this.stmt('INSERT INTO pool_posts (pool_id, post_seq, position) VALUES (?, ?, ?)');
    seqs.forEach((seq, position) => insert.run(poolId, seq, position));
  }

  /** Takes a post out of one pool; its place stays a gap. */
  remove(poolId: number, seq: number): void {
    this.stmt('DELETE FROM pool_posts WHERE pool_id = ? AND post_seq = ?').run(poolId, seq);
  }

  /** Puts `seq` at `position` of the pool (the place must be free). */
  put(poolId: number, seq: number, position: number): void {
    this.stmt('INSERT INTO pool_posts (pool_id, post_seq, position) VALUES (?, ?, ?)').run(poolId, seq, position);
  }
}
