import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/** An app key as listed: never the key, which is kept only as its SHA-256 digest. */
export interface AppKeyRecord {
  id: number;
  userId: number;
  name: string;
  permission: number;
  createdAt: string;
}

const COLUMNS = 'id, user_id AS userId, name, permission, created_at AS createdAt';

/** SQLite access for app keys (migration 011). Callers own the transactions. */
export class AppKeyRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  insert(key: Omit<AppKeyRecord, 'id'> & { digest: Buffer }): number {
    const info = this.stmt(
      'INSERT INTO app_keys (user_id, name, key_digest, permission, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(key.userId, key.name, key.digest, key.permission, key.createdAt);
    return Number(info.lastInsertRowid);
  }

  get(id: number): AppKeyRecord | undefined {
    return this.stmt(`SELECT ${COLUMNS} FROM app_keys WHERE id = ?`).get(id) as AppKeyRecord | undefined;
  }

  /** The key with this digest and the digest itself, for the constant-time comparison. */
  getByDigest(digest: Buffer): (AppKeyRecord & { digest: Buffer }) | undefined {
    return this.stmt(`SELECT ${COLUMNS}, key_digest AS digest FROM app_keys WHERE key_digest = ?`).get(digest) as
      | (AppKeyRecord & { digest: Buffer })
      | undefined;
  }

  listOf(userId: number): AppKeyRecord[] {
    return this.stmt(`SELECT ${COLUMNS} FROM app_keys WHERE user_id = ? ORDER BY id`).all(userId) as AppKeyRecord[];
  }

  countOf(userId: number): number {
    return this.stmt('SELECT count(*) FROM app_keys WHERE user_id = ?').pluck().get(userId) as number;
  }

  /** Only the owner's own key: false when there is no such key of theirs. */
  delete(userId: number, id: number): boolean {
    return this.stmt('DELETE FROM app_keys WHERE id = ? AND user_id = ?').run(id, userId).changes > 0;
  }
}
