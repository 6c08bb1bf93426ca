import type { Statement } from 'better-sqlite3';

export type { Statement };
import type { Db } from './sqlite.ts';

/**
 * A repository's statements, each prepared on first use and kept: preparing (parsing and planning)
 * costs about as much as running the small lookups repositories make, on every request (measured
 * in a searching server's profile: bench/notes/issue-16.md).
 */
export function statementCache(db: Db): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };
}
