import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrate.ts';

export type Db = Database.Database;

export const DATABASE_FILE = 'imgpost.sqlite';

/** Opens (creating if needed) the one database file in dataDir and brings its schema up to date. */
export function openDatabase(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  // A new database frees pages retention deletes back to the file system, a few at a time
  // (src/webhooks/retention.ts). Only possible before the first table exists; an older database reuses
  // freed pages for new rows instead, which also keeps its size bounded.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // WAL makes NORMAL durable against process crashes; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export const nowIso = (): string => new Date().toISOString();
