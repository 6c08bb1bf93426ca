/**
 * The posts' robust descriptors (docs/decisions.md §16; the `robust` column of migration 015, encoded by
 * src/robust/format.ts). Part of the post repository (`posts.robust`): the column is the
 * posts table's, so its SQL stays in the kernel. NULL means not computed yet.
 */
import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/** A post still waiting for its descriptor: enough to find its image. */
export interface PendingDescriptor {
  seq: number;
  id: string;
  ext: string;
}

/** A stored descriptor with what a robust match answers of its post. */
export interface StoredDescriptor {
  seq: number;
  id: string;
  ext: string;
  createdAt: string;
  robust: Buffer;
}

const STORED = 'SELECT seq, id, ext, created_at AS createdAt, robust FROM posts';

export class RobustDescriptors {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** Posts without a descriptor numbered above `afterSeq`, in number order (the backfill's cursor). */
  pending(afterSeq: number, limit: number): PendingDescriptor[] {
    return this.stmt('SELECT seq, id, ext FROM posts WHERE robust IS NULL AND seq > ? ORDER BY seq LIMIT ?').all(
      afterSeq,
      limit,
    ) as PendingDescriptor[];
  }

  /** The post (by id) waiting for its descriptor; undefined when it has one or is gone. */
  pendingPost(id: string): PendingDescriptor | undefined {
    return this.stmt('SELECT seq, id, ext FROM posts WHERE id = ? AND robust IS NULL').get(id) as
      | PendingDescriptor
      | undefined;
  }

  /** How many posts have none yet. */
  pendingCount(): number {
    return this.stmt('SELECT count(*) FROM posts WHERE robust IS NULL').pluck().get() as number;
  }

  /**
   * Stores a post's descriptor if it has none, raising its index version (the document gains its
   * terms through a 'reindex' change, which must win over the older document). Must run inside the
   * change's transaction; false when the post is gone or already has one.
   */
  store(seq: number, robust: Buffer): boolean {
    return (
      this.stmt('UPDATE posts SET robust = ?, version = version + 1 WHERE seq = ? AND robust IS NULL').run(robust, seq)
        .changes === 1
    );
  }

  /**
   * Stores a new post's descriptor in its insert's transaction (made with the upload): the post is
   * indexed for the first time after this commit, so its version stays.
   */
  storeWithInsert(seq: number, robust: Buffer): void {
    this.stmt('UPDATE posts SET robust = ? WHERE seq = ?').run(robust, seq);
  }

  /**
   * Stores `robust` for every post above `afterSeq` that has none, without raising index versions:
   * for posts written in bulk before they are first indexed (the seeder's, which have no image files).
   */
  storeAbove(afterSeq: number, robust: Buffer): number {
    return this.stmt('UPDATE posts SET robust = ? WHERE robust IS NULL AND seq > ?').run(robust, afterSeq).changes;
  }

  /** The descriptor of one post (undefined: no such post or none yet). */
  ofId(id: string): Buffer | undefined {
    return (
      (this.stmt('SELECT robust FROM posts WHERE id = ?').pluck().get(id) as Buffer | null | undefined) ?? undefined
    );
  }

  /**
   * Descriptors by post number (posts without one are left out): reindex's documents, the robust lookup's candidates.
   */
  ofSeqs(seqs: number[]): Map<number, Buffer> {
    if (seqs.length === 0) return new Map();
    const rows = this.stmt(
      'SELECT seq, robust FROM posts WHERE robust IS NOT NULL AND seq IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(seqs)) as { seq: number; robust: Buffer }[];
    return new Map(rows.map((r) => [r.seq, r.robust]));
  }

  /** The candidates of a lookup, by number, in one statement (posts without one are left out). */
  stored(seqs: number[]): StoredDescriptor[] {
    if (seqs.length === 0) return [];
    return this.stmt(`${STORED} WHERE robust IS NOT NULL AND seq IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(seqs),
    ) as StoredDescriptor[];
  }

  /**
   * Every stored descriptor, in number order, read as iterated: the linear scan the lookup is checked and measured
   * against.
   */
  all(): IterableIterator<StoredDescriptor> {
    return this.stmt(`${STORED} WHERE robust IS NOT NULL ORDER BY seq`).iterate() as IterableIterator<StoredDescriptor>;
  }
}
