import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { listMigrations, migrate, schemaVersion } from '../../src/db/migrate.ts';
import { DATABASE_FILE, openDatabase } from '../../src/db/sqlite.ts';
import { tempDir } from '../helpers/app.ts';

test('migrations create every table on an empty file, then are a no-op', (t) => {
  const dir = tempDir();
  const db = new Database(path.join(dir, DATABASE_FILE));
  const all = listMigrations().map((m) => m.version);
  t.deepEqual(migrate(db), all);
  t.is(schemaVersion(db), Math.max(...all));
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
  for (const table of [
    'users',
    'posts',
    'tags',
    'post_tags',
    'outbox',
    'webhooks',
    'webhook_deliveries',
    'schema_migrations',
  ])
    t.true(tables.includes(table), table);
  t.deepEqual(migrate(db), []);
  t.is(schemaVersion(db), Math.max(...all));
  db.close();
});

test('openDatabase uses WAL and foreign keys', (t) => {
  const db = openDatabase(tempDir());
  t.is(db.pragma('journal_mode', { simple: true }), 'wal');
  t.is(db.pragma('foreign_keys', { simple: true }), 1);
  db.close();
});

test('a later migration upgrades an existing database in place', (t) => {
  const dir = tempDir();
  const db = openDatabase(dir);
  db.prepare("INSERT INTO tags (name) VALUES ('kept')").run();
  const next = { version: 999, name: '999-test.sql', sql: 'ALTER TABLE tags ADD COLUMN note TEXT;' };
  t.deepEqual(migrate(db, [...listMigrations(), next]), [999]);
  t.is(db.prepare('SELECT name FROM tags').pluck().get(), 'kept');
  t.is(schemaVersion(db), 999);
  db.close();
});
