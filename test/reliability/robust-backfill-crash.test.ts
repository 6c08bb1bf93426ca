/**
 * docs/decisions.md §16, issue 25: the robust descriptors of posts uploaded while the server computed none
 * are filled by the server's backfill loop, in post-number order, one transaction each; kill -9 in
 * the middle loses nothing and the next start resumes at the first post without one, until every
 * post has its descriptor and the index its terms (a robust lookup finds a cropped copy).
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { TRANSFORMS } from '../../bench/robust/transforms.ts';
import { loadConfig } from '../../src/config.ts';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { CELL_COUNT } from '../../src/robust/cells.ts';
import { openAccountsJob } from '../../src/roles/jobs.ts';
import { isolatedEnv } from '../backup/env.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { startChild, type ChildServer } from './child-server.ts';

const PHOTO = new URL('../fixtures/photos/chelsea.jpg', import.meta.url).pathname;
const until = async (what: string, ok: () => boolean, ms = 60_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('kill -9 during the backfill: the next start resumes in post order and every post gets its descriptor once', async (t) => {
  t.timeout(120_000);
  const env = await isolatedEnv(t, 'robust-backfill');
  const dataDir = env.DATA_DIR!;
  fs.mkdirSync(dataDir);
  let server: ChildServer | undefined;
  t.teardown(() => server?.stop());
  const accounts = openAccountsJob(loadConfig({ DATA_DIR: dataDir }));
  const uploader = await accounts.accounts.createUser({
    name: 'uploader',
    password: 'correct horse battery',
    permission: 0x2 | 0x4,
  });
  accounts.close();

  // Posts from a server that computes no descriptors (as before migration 015).
  server = await startChild({ ...env, ROBUST_DESCRIPTORS: '0' });
  const upload = async (image: Buffer) => {
    const res = await fetch(`${server!.url}/api/post/`, {
      method: 'POST',
      headers: { 'X-Access-Key': uploader.accessKey },
      body: uploadForm({ image, force: '1' }),
    });
    t.is(res.status, 201);
    return ((await res.json()) as { id: string }).id;
  };
  const photo = await upload(fs.readFileSync(PHOTO));
  for (let i = 0; i < 14; i++) await upload(await randomImage(2500 + i, 96, 72));
  const cropped = await upload(await TRANSFORMS.find((x) => x.name === 'crop10-side')!.apply(PHOTO, 0));
  await server.stop();

  const reader = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
  t.teardown(() => reader.close());
  const filled = () =>
    reader.prepare('SELECT seq FROM posts WHERE robust IS NOT NULL ORDER BY seq').pluck().all() as number[];
  const seqs = reader.prepare('SELECT seq FROM posts ORDER BY seq').pluck().all() as number[];
  t.is(seqs.length, 16);
  t.deepEqual(filled(), []);

  // Slowed down (a pause after each descriptor) so the kill lands mid-backfill.
  server = await startChild({ ...env, ROBUST_DESCRIPTORS: '1', ROBUST_PAUSE_MS: '150' });
  await until('the first descriptors', () => filled().length >= 3);
  await server.kill9();
  const atKill = filled();
  t.log(`killed after ${atKill.length} of ${seqs.length} descriptors`);
  t.true(atKill.length < seqs.length, 'killed mid-backfill');
  t.deepEqual(atKill, seqs.slice(0, atKill.length), 'filled in post-number order');

  server = await startChild({ ...env, ROBUST_DESCRIPTORS: '1' });
  await until(
    'every descriptor and its index change',
    () =>
      filled().length === seqs.length &&
      (reader.prepare('SELECT count(*) FROM outbox WHERE indexed_at IS NULL').pluck().get() as number) === 0,
  );
  const versions = reader.prepare('SELECT DISTINCT version FROM posts').pluck().all();
  t.deepEqual(versions, [2], 'each post stored its descriptor once (one raised version)');
  const found = await (await fetch(`${server.url}/api/post/${photo}/similar?robust=1`)).json();
  t.deepEqual(
    found.robust.map((r: { id: string }) => r.id),
    [cropped],
    JSON.stringify(found),
  );
  await server.stop();

  // A database from the release before format 3 (migration 017 not applied yet): two descriptors of
  // format 2 (the same hashes, no cells) and an unreadable one. The upgrade clears the two and the
  // backfill computes them again, one raised version each; the unreadable one says the same in
  // format 3 and is rewritten, not computed; the other posts are left alone.
  const writer = new Database(path.join(dataDir, DATABASE_FILE));
  const rows = writer.prepare('SELECT seq, robust FROM posts ORDER BY seq LIMIT 3').all() as {
    seq: number;
    robust: Buffer;
  }[];
  const current = rows.slice(0, 2);
  for (const { seq, robust } of current) {
    const old = Buffer.from(robust.subarray(0, robust.length - CELL_COUNT * 9));
    old[0] = 2;
    writer.prepare('UPDATE posts SET robust = ? WHERE seq = ?').run(old, seq);
  }
  writer.prepare('UPDATE posts SET robust = ? WHERE seq = ?').run(Buffer.from([2, 0]), rows[2].seq);
  // Only 017 is marked undone: the later migrations' schema (new columns) is already in place.
  writer.prepare('DELETE FROM schema_migrations WHERE version = 17').run();
  writer.close();
  const format = () => reader.prepare('SELECT DISTINCT unicode(substr(robust, 1, 1)) FROM posts').pluck().all();
  t.deepEqual(format().sort(), [2, 3]);
  server = await startChild({ ...env, ROBUST_DESCRIPTORS: '1' });
  await until(
    'format 2 recomputed and reindexed',
    () =>
      format().join() === '3' &&
      (reader.prepare('SELECT count(*) FROM outbox WHERE indexed_at IS NULL').pluck().get() as number) === 0,
  );
  const byVersion = reader.prepare('SELECT version, count(*) AS n FROM posts GROUP BY version ORDER BY version').all();
  t.deepEqual(byVersion, [
    { version: 2, n: 14 },
    { version: 3, n: 2 },
  ]);
  t.deepEqual(
    reader
      .prepare('SELECT robust FROM posts WHERE seq IN (?, ?) ORDER BY seq')
      .pluck()
      .all(current[0].seq, current[1].seq),
    current.map((c) => c.robust),
  );
  t.deepEqual(reader.prepare('SELECT robust FROM posts WHERE seq = ?').pluck().get(rows[2].seq), Buffer.from([3, 0]));
  const again = await (await fetch(`${server.url}/api/post/${photo}/similar?robust=1`)).json();
  t.deepEqual(
    again.robust.map((r: { id: string }) => r.id),
    [cropped],
    JSON.stringify(again),
  );
});
