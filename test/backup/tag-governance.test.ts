/**
 * docs/decisions.md §15 in a backup: the database is copied whole (SQLite's backup API), so aliases,
 * implications and implication jobs come back with a restore.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { createUser } from '../helpers/users.ts';
import { backUpAndRestore } from './env.ts';
import { startSource } from './source.ts';

test('aliases, implications and tag jobs survive backup and restore', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  const [id] = await source.upload(1);
  const admin = await createUser(source.app, 0x2 | 0x4 | 0x1000);
  const headers = { ...admin.headers, 'Content-Type': 'application/json' };
  const request = (method: string, url: string, body?: unknown) =>
    source.app.request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  t.is((await request('PATCH', `/api/post/${id}`, { tags: ['bk-cat', 'bk-kitty', 'bk-animal'] })).status, 200);
  t.is((await request('PUT', '/api/tag/bk-kitty/alias', { target: 'bk-cat' })).status, 200);
  t.is((await request('PUT', '/api/tag/bk-cat/implies/bk-animal')).status, 200);

  const target = await backUpAndRestore(t, source.env, 'restore-tags', ['--skip-reindex']);

  const db = new Database(path.join(target.DATA_DIR, DATABASE_FILE), { readonly: true });
  t.deepEqual(db.prepare('SELECT name, target FROM tag_aliases').all(), [{ name: 'bk-kitty', target: 'bk-cat' }]);
  t.deepEqual(db.prepare('SELECT tag, implies FROM tag_implications').all(), [{ tag: 'bk-cat', implies: 'bk-animal' }]);
  t.is(db.prepare('SELECT count(*) FROM tag_jobs').pluck().get(), 1);
  db.close();
});
