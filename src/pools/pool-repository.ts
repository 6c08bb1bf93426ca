import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { foldTag, prefixUpperBound } from '../kernel/tag-fold.ts';
import { namesFor, type UserNames } from '../kernel/user-names.ts';
import type { PoolAction, PoolChangeRecord, PoolChanges, PoolRecord } from './schemas.ts';

export type { PoolAction, PoolChangeRecord, PoolChanges, PoolRecord } from './schemas.ts';

const SELECT = `SELECT p.id, p.name, p.description, p.created_at AS createdAt, p.updated_at AS updatedAt,
  (SELECT count(*) FROM pool_posts pp WHERE pp.pool_id = p.id) AS postCount FROM pools p`;

/** SQLite access for `pools` and `pool_changes` (docs/decisions.md §19). Callers own the transactions. */
export class PoolRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(
    db: Db,
    /** the names of who made each change (the users table is the accounts') */
    private readonly users: UserNames,
  ) {
    this.stmt = statementCache(db);
  }

  get(id: number): PoolRecord | undefined {
    return this.stmt(`${SELECT} WHERE p.id = ?`).get(id) as PoolRecord | undefined;
  }

  getMany(ids: readonly number[]): PoolRecord[] {
    if (ids.length === 0) return [];
    return this.stmt(`${SELECT} WHERE p.id IN (SELECT value FROM json_each(?)) ORDER BY p.id`).all(
      JSON.stringify(ids),
    ) as PoolRecord[];
  }

  /** The pool whose name folds like `name`, if any. */
  idNamed(name: string): number | undefined {
    return this.stmt('SELECT id FROM pools WHERE folded = ?').pluck().get(foldTag(name)) as number | undefined;
  }

  private range(prefix: string): { where: string; params: string[] } {
    const low = foldTag(prefix);
    const high = prefixUpperBound(low);
    if (low === '') return { where: '', params: [] };
    return high === undefined
      ? { where: 'WHERE p.folded >= ?', params: [low] }
      : { where: 'WHERE p.folded >= ? AND p.folded < ?', params: [low, high] };
  }

  count(prefix: string): number {
    const { where, params } = this.range(prefix);
    return this.stmt(`SELECT count(*) FROM pools p ${where}`)
      .pluck()
      .get(...params) as number;
  }

  /** By name, case-insensitively, then id. */
  page(prefix: string, offset: number, limit: number): PoolRecord[] {
    const { where, params } = this.range(prefix);
    return this.stmt(`${SELECT} ${where} ORDER BY p.folded, p.id LIMIT ? OFFSET ?`).all(
      ...params,
      limit,
      offset,
    ) as PoolRecord[];
  }

  insert(name: string, description: string, now: string): number {
    return Number(
      this.stmt('INSERT INTO pools (name, folded, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
        name,
        foldTag(name),
        description,
        now,
        now,
      ).lastInsertRowid,
    );
  }

  update(id: number, fields: { name: string; description: string; updatedAt: string }): void {
    this.stmt('UPDATE pools SET name = ?, folded = ?, description = ?, updated_at = ? WHERE id = ?').run(
      fields.name,
      foldTag(fields.name),
      fields.description,
      fields.updatedAt,
      id,
    );
  }

  touch(id: number, updatedAt: string): void {
    this.stmt('UPDATE pools SET updated_at = ? WHERE id = ?').run(updatedAt, id);
  }

  /** Removes the pool; its posts' places go with it (ON DELETE CASCADE), its history stays. */
  delete(id: number): void {
    this.stmt('DELETE FROM pools WHERE id = ?').run(id);
  }

  record(poolId: number, action: PoolAction, userId: number | null, changes: PoolChanges, at: string): void {
    this.stmt('INSERT INTO pool_changes (pool_id, action, user_id, changes, created_at) VALUES (?, ?, ?, ?, ?)').run(
      poolId,
      action,
      userId,
      JSON.stringify(changes),
      at,
    );
  }

  historyCount(poolId: number): number {
    return this.stmt('SELECT count(*) FROM pool_changes WHERE pool_id = ?').pluck().get(poolId) as number;
  }

  /** Newest first. */
  history(poolId: number, offset: number, limit: number): PoolChangeRecord[] {
    const rows = this.stmt(
      `SELECT id, pool_id AS poolId, action, user_id AS userId, changes, created_at AS createdAt FROM pool_changes
       WHERE pool_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
    ).all(poolId, limit, offset) as (Omit<PoolChangeRecord, 'user' | 'changes'> & {
      userId: number | null;
      changes: string;
    })[];
    const names = namesFor(
      this.users,
      rows.map((r) => r.userId),
    );
    return rows.map(({ userId, changes, ...r }) => {
      const name = userId === null ? undefined : names.get(userId);
      return {
        ...r,
        user: userId !== null && name !== undefined ? { id: userId, name } : null,
        changes: JSON.parse(changes) as PoolChanges,
      };
    });
  }
}
