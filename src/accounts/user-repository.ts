import type { Db } from '../db/sqlite.ts';
import type { Self } from './account-shapes.ts';
import type { Statement } from '../db/statements.ts';
import type { UserNames } from '../kernel/user-names.ts';

/** A user as SQLite holds it. passwordHash never leaves the accounts module (see `toSelf`). */
export interface UserRecord {
  id: number;
  name: string;
  email: string | null;
  passwordHash: string;
  accessKey: string;
  permission: number;
  createdAt: string;
}

export type { Self } from './account-shapes.ts';

export const toSelf = (u: UserRecord): Self => ({
  id: u.id,
  name: u.name,
  email: u.email,
  permission: u.permission,
  accessKey: u.accessKey,
  createdAt: u.createdAt,
});

interface UserRow {
  id: number;
  name: string;
  email: string | null;
  password_hash: string;
  access_key: string;
  permission: number;
  created_at: string;
}

const COLUMNS = 'id, name, email, password_hash, access_key, permission, created_at';

const fromRow = (r: UserRow): UserRecord => ({
  id: r.id,
  name: r.name,
  email: r.email,
  passwordHash: r.password_hash,
  accessKey: r.access_key,
  permission: r.permission,
  createdAt: r.created_at,
});

export interface NewUser {
  name: string;
  email: string | null;
  passwordHash: string;
  accessKey: string;
  accessKeyDigest: Buffer;
  permission: number;
  createdAt: string;
}

/** SQLite access for users. Callers own the transactions. */
export class UserRepository implements UserNames {
  constructor(private readonly db: Db) {}

  /** Prepared once: every post read asks for its uploader's name. */
  private namesStatement: Statement | undefined;

  namesOf(ids: readonly number[]): Map<number, string> {
    this.namesStatement ??= this.db.prepare('SELECT id, name FROM users WHERE id IN (SELECT value FROM json_each(?))');
    const rows = this.namesStatement.all(JSON.stringify(ids)) as { id: number; name: string }[];
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  insert(user: NewUser): number {
    const info = this.db
      .prepare(
        `INSERT INTO users (name, email, password_hash, access_key, access_key_digest, permission, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        user.name,
        user.email,
        user.passwordHash,
        user.accessKey,
        user.accessKeyDigest,
        user.permission,
        user.createdAt,
      );
    return Number(info.lastInsertRowid);
  }

  getById(id: number): UserRecord | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id) as UserRow | undefined;
    return row && fromRow(row);
  }

  /** Names are unique without regard to case (the column is COLLATE NOCASE). */
  getByName(name: string): UserRecord | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM users WHERE name = ?`).get(name) as UserRow | undefined;
    return row && fromRow(row);
  }

  getByKeyDigest(digest: Buffer): UserRecord | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM users WHERE access_key_digest = ?`).get(digest) as
      | UserRow
      | undefined;
    return row && fromRow(row);
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM users').pluck().get() as number;
  }

  list(): UserRecord[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM users ORDER BY id`).all() as UserRow[]).map(fromRow);
  }

  /** Names starting with `prefix` (without regard to case), by id. */
  listByPrefix(prefix: string, offset: number, limit: number): { count: number; rows: UserRecord[] } {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const count = this.db
      .prepare("SELECT count(*) FROM users WHERE name LIKE ? ESCAPE '\\'")
      .pluck()
      .get(like) as number;
    const rows = this.db
      .prepare(`SELECT ${COLUMNS} FROM users WHERE name LIKE ? ESCAPE '\\' ORDER BY id LIMIT ? OFFSET ?`)
      .all(like, limit, offset) as UserRow[];
    return { count, rows: rows.map(fromRow) };
  }

  /** Accounts holding the super-user bit (the last one may not lose it). */
  countSuperUsers(): number {
    return this.db.prepare('SELECT count(*) FROM users WHERE permission & 1 = 1').pluck().get() as number;
  }

  setProfile(id: number, fields: { name: string; email: string | null }): void {
    this.db.prepare('UPDATE users SET name = ?, email = ? WHERE id = ?').run(fields.name, fields.email, id);
  }

  setPermission(id: number, permission: number): void {
    this.db.prepare('UPDATE users SET permission = ? WHERE id = ?').run(permission, id);
  }

  setAccessKey(id: number, key: string, digest: Buffer): void {
    this.db.prepare('UPDATE users SET access_key = ?, access_key_digest = ? WHERE id = ?').run(key, digest, id);
  }

  delete(id: number): void {
    this.db.prepare('DELETE FROM users WHERE id = ?').run(id);
  }
}
