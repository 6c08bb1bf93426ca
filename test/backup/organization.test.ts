/**
 * docs/decisions.md §19 in a backup: the SQLite snapshot carries pools (their order and history), sources,
 * parents, tag categories and the versions that keep them; a restore with its reindex brings the index
 * back with them (`imgpost verify` clean, every document field compared).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { cli } from '../reliability/child-server.ts';
import { createUser } from '../helpers/users.ts';
import { backUpAndRestore } from './env.ts';
import { startSource } from './source.ts';

test('pools, sources, parents and tag categories survive backup and restore', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  const [a, b, c] = await source.upload(3);
  const admin = await createUser(source.app, 0x2 | 0x4 | 0x1000);
  const headers = { ...admin.headers, 'Content-Type': 'application/json' };
  const request = async (method: string, url: string, body?: unknown) => {
    const res = await source.app.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  t.is(
    (await request('PATCH', `/api/post/${b}`, { parentId: a, source: 'https://a.example/1', tags: ['bk-x'] })).status,
    200,
  );
  t.is((await request('PUT', '/api/tag/bk-x/category', { category: 'artist' })).status, 200);
  const pool = await request('POST', '/api/pool', { name: 'Backed up', postIds: [c, a, b] });
  t.is(pool.status, 201);
  t.is((await request('PATCH', `/api/pool/${pool.body.id}`, { postIds: [b, c, a] })).status, 200);

  const target = await backUpAndRestore(t, source.env, 'restore-organization');

  const db = new Database(path.join(target.DATA_DIR, DATABASE_FILE), { readonly: true });
  const seqOf = (id: string) => db.prepare('SELECT seq FROM posts WHERE id = ?').pluck().get(id);
  t.deepEqual(db.prepare('SELECT name FROM pools').pluck().all(), ['Backed up']);
  t.deepEqual(db.prepare('SELECT post_seq FROM pool_posts ORDER BY position').pluck().all(), [b, c, a].map(seqOf));
  t.deepEqual(db.prepare('SELECT action FROM pool_changes ORDER BY id').pluck().all(), ['create', 'edit']);
  t.like(db.prepare('SELECT source, parent_seq AS parentSeq FROM posts WHERE id = ?').get(b), {
    source: 'https://a.example/1',
    parentSeq: seqOf(a),
  });
  t.is(db.prepare("SELECT category FROM tags WHERE name = 'bk-x'").pluck().get(), 'artist');
  t.like(db.prepare('SELECT source, parent_id AS parentId FROM post_versions WHERE number = 2').get(), {
    source: 'https://a.example/1',
    parentId: a,
  });
  db.close();
  // The restore's reindex built documents with pools, parent and source: verify compares every field.
  const verified = await cli(['verify', '--json'], target);
  t.is(verified.code, 0, verified.stdout.slice(0, 2000));
});
