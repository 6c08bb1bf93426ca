import type { Db } from '../db/sqlite.ts';
import { AppError, notFound } from '../errors.ts';
import type { AppKeyService, AppKeyView } from './app-keys.ts';

export interface PasskeySummary {
  id: string | number;
  name: string | null;
  createdAt: string | null;
}

/**
 * What `imgpost user keys` shows and revokes (decisions §14): a user's app keys, and their passkeys
 * when the passkey table exists (issue 27's passkey part adds it; this reads only id, name and
 * created_at, whichever of those it has, so it works with or without it).
 */
export class Credentials {
  constructor(
    private readonly db: Db,
    private readonly appKeys: AppKeyService,
  ) {}

  private passkeyColumns(): Set<string> | undefined {
    const columns = this.db.prepare("SELECT name FROM pragma_table_info('passkeys')").pluck().all() as string[];
    return columns.length > 0 ? new Set(columns) : undefined;
  }

  of(userId: number): { appKeys: AppKeyView[]; passkeys?: PasskeySummary[] } {
    const columns = this.passkeyColumns();
    if (!columns?.has('user_id')) return { appKeys: this.appKeys.list(userId) };
    const pick = (c: string) => (columns.has(c) ? c : 'NULL');
    const passkeys = this.db
      .prepare(`SELECT ${pick('id')} AS id, ${pick('name')} AS name, ${pick('created_at')} AS createdAt FROM passkeys WHERE user_id = ? ORDER BY 1`)
      .all(userId) as PasskeySummary[];
    return { appKeys: this.appKeys.list(userId), passkeys };
  }

  revokeAppKey(userId: number, id: number): void {
    this.appKeys.revoke(userId, id);
  }

  revokePasskey(userId: number, id: string): void {
    if (!this.passkeyColumns()?.has('user_id')) throw new AppError('not_found', 'this database has no passkeys');
    if (this.db.prepare('DELETE FROM passkeys WHERE id = ? AND user_id = ?').run(id, userId).changes === 0) throw notFound('no such passkey of this user');
  }
}
