/**
 * docs/decisions.md §23 in a backup: the SQLite snapshot carries wiki pages and notes with their versions,
 * and the post's last note time; a restore brings them back and `imgpost verify` is clean.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { cli } from '../reliability/child-server.ts';
import { createUser } from '../helpers/users.ts';
import { backUpAndRestore } from './env.ts';
import { startSource } from './source.ts';

test('wiki pages and notes survive backup and restore', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  const [a] = await source.upload(1);
  const editor = await createUser(source.app, 0x2 | 0x4);
  const headers = { ...editor.headers, 'Content-Type': 'application/json' };
  const request = async (method: string, url: string, body?: unknown) => {
    const res = await source.app.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  t.is((await request('PATCH', `/api/post/${a}`, { tags: ['bk-wiki'] })).status, 200);
  t.is((await request('PUT', '/api/wiki/bk-wiki', { body: 'first', otherNames: ['other'] })).status, 200);
  t.is((await request('PUT', '/api/wiki/bk-wiki', { body: 'second', version: 1 })).status, 200);
  const note = await request('POST', `/api/post/${a}/note`, { x: 1, y: 1, width: 2, height: 2, body: 'kept' });
  t.is(note.status, 201);
  t.is((await request('PATCH', `/api/note/${note.body.id}`, { body: 'kept twice', version: 1 })).status, 200);

  const target = await backUpAndRestore(t, source.env, 'restore-knowledge');

  const db = new Database(path.join(target.DATA_DIR, DATABASE_FILE), { readonly: true });
  t.like(db.prepare("SELECT body, other_names AS otherNames, version FROM wiki_pages WHERE tag = 'bk-wiki'").get(), {
    body: 'second',
    otherNames: '["other"]',
    version: 2,
  });
  t.is(db.prepare('SELECT count(*) FROM wiki_versions').pluck().get(), 2);
  t.like(db.prepare('SELECT body, version FROM notes WHERE id = ?').get(note.body.id), {
    body: 'kept twice',
    version: 2,
  });
  t.is(db.prepare('SELECT count(*) FROM note_versions WHERE note_id = ?').pluck().get(note.body.id), 2);
  t.like(db.prepare('SELECT notes FROM posts WHERE id = ?').get(a), { notes: 1 });
  t.truthy(db.prepare('SELECT last_noted_at FROM posts WHERE id = ?').pluck().get(a));
  db.close();
  const verified = await cli(['verify', '--json'], target);
  t.is(verified.code, 0, verified.stdout.slice(0, 2000));
});
