import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/** A posts index on its way out: `unaliasedAt` once seen out of the alias, `closedAt` once closed (ms). */
export interface RetiringIndex {
  name: string;
  unaliasedAt?: number;
  closedAt?: number;
}

interface Row {
  name: string;
  unaliased_at: number | null;
  closed_at: number | null;
}

/** The `retiring_indices` table (migration 021), its one owner. */
export class RetiringIndexRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** Adds these indices (those already there keep their progress). */
  add(names: readonly string[]): void {
    const insert = this.stmt('INSERT OR IGNORE INTO retiring_indices (name) VALUES (?)');
    for (const name of names) insert.run(name);
  }

  /** Notes when the alias was seen to have left these indices (the first time counts). */
  unaliased(names: readonly string[], at: number): void {
    const mark = this.stmt('UPDATE retiring_indices SET unaliased_at = coalesce(unaliased_at, ?) WHERE name = ?');
    for (const name of names) mark.run(at, name);
  }

  closed(name: string, at: number): void {
    this.stmt('UPDATE retiring_indices SET closed_at = coalesce(closed_at, ?) WHERE name = ?').run(at, name);
  }

  remove(names: readonly string[]): void {
    const del = this.stmt('DELETE FROM retiring_indices WHERE name = ?');
    for (const name of names) del.run(name);
  }

  all(): RetiringIndex[] {
    return (this.stmt('SELECT * FROM retiring_indices ORDER BY name').all() as Row[]).map((r) => ({
      name: r.name,
      unaliasedAt: r.unaliased_at ?? undefined,
      closedAt: r.closed_at ?? undefined,
    }));
  }

  /** A restored database's rows name the indices of the deployment it was backed up from. */
  clear(): void {
    this.stmt('DELETE FROM retiring_indices').run();
  }
}
