import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Numbered files `NNN-name.sql`, applied in order. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * Applies every migration not yet recorded, each in its own transaction, so a later release
 * upgrades an existing database in place. Returns the versions applied now.
 */
export function migrate(db: Database.Database, migrations = listMigrations()): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const done = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }).immediate();
    applied.push(m.version);
  }
  return applied;
}

export function schemaVersion(db: Database.Database): number {
  return (db.prepare('SELECT coalesce(max(version), 0) FROM schema_migrations').pluck().get() as number) ?? 0;
}
