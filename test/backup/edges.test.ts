/**
 * The moments between the database snapshot and the file copy: a thumbnail not made yet is skipped
 * and listed (restore makes it from the image); a post deleted meanwhile is left out of
 * the snapshot; an image missing for a live post fails the backup rather than store a post without it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { cli } from '../reliability/child-server.ts';
import { eventually } from '../webhooks/receiver.ts';
import { destDir, isolatedEnv } from './env.ts';
import { startSource } from './source.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const fileIn = (dataDir: string, name: string) =>
  path.join(dataDir, 'images', name.slice(0, name.indexOf('.')).slice(-2), name);

test('a thumbnail not made yet is skipped and listed; restore makes it', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  const [id] = await source.upload(2);
  // Made, then lost: the thumbnails come once the uploads pause.
  await eventually(() => source.app.services.thumbnailQueue.size() === 0 || undefined, 60_000);
  fs.rmSync(fileIn(source.app.dataDir, `${id}.1024.webp`));
  const dest = destDir(t);
  const made = await cli(['backup', dest, '--json'], source.env);
  t.is(made.code, 0, made.stderr);
  const summary = JSON.parse(made.stdout) as { path: string; files: number; missingThumbnails: number };
  t.like(summary, { files: 5, missingThumbnails: 1 });
  t.regex(made.stderr, /1 thumbnails not made yet \(skipped\)/);
  t.deepEqual(JSON.parse(fs.readFileSync(path.join(summary.path, 'manifest.json'), 'utf8')).missingThumbnails, [
    `${id}.1024.webp`,
  ]);

  const target = await isolatedEnv(t, 'restore-thumbs');
  const restored = await cli(['restore', dest, '--skip-reindex', '--json'], target);
  t.is(restored.code, 0, restored.stderr);
  t.regex(restored.stderr, /made the thumbnails of 1 posts that lacked them when the backup ran\n/);
  t.is(JSON.parse(restored.stdout).thumbnailsMade, 1);
  t.true(fs.existsSync(fileIn(target.DATA_DIR, `${id}.1024.webp`)));
  t.true(
    fs
      .readFileSync(fileIn(target.DATA_DIR, `${id}.1024.webp`))
      .subarray(8, 12)
      .equals(Buffer.from('WEBP')),
  );
});

test('a post deleted after the database snapshot, before its files were copied, is left out of the snapshot', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  const ids = await source.upload(4);
  const last = ids[ids.length - 1];
  const dest = destDir(t);
  // Slow enough that the last post's files are copied seconds after the first file appears.
  const child = spawn(process.execPath, [CLI_JS, 'backup', dest, '--max-rate', '1k', '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...source.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstCopied = () => {
    const snaps = fs.existsSync(path.join(dest, 'snapshots')) ? fs.readdirSync(path.join(dest, 'snapshots')) : [];
    return snaps.some((s) =>
      fs.existsSync(path.join(dest, 'snapshots', s, 'files', ids[0].slice(-2), `${ids[0]}.png`)),
    );
  };
  await eventually(() => stderr.includes('backup files') && firstCopied(), 60_000, 20);
  t.is((await source.app.request(`/api/post/${last}`, { method: 'DELETE', headers: source.user.headers })).status, 204);
  t.is(await exited, 0, stderr);

  const summary = JSON.parse(stdout) as { path: string; posts: number; files: number; deletedDuringBackup: number };
  t.like(summary, { posts: 3, files: 9, deletedDuringBackup: 1 });
  const manifest = JSON.parse(fs.readFileSync(path.join(summary.path, 'manifest.json'), 'utf8')) as {
    deletedDuringBackup: string[];
    files: { path: string }[];
  };
  t.deepEqual(manifest.deletedDuringBackup, [last]);
  t.false(manifest.files.some((f) => f.path.includes(last)));
  const db = new Database(path.join(summary.path, 'imgpost.sqlite'), { readonly: true });
  t.is(db.prepare('SELECT count(*) FROM posts WHERE id = ?').pluck().get(last), 0);
  t.is(db.prepare('SELECT count(*) FROM posts').pluck().get(), 3);
  t.is(db.prepare('SELECT count(*) FROM pending_files').pluck().get(), 0);
  t.deepEqual(db.pragma('foreign_key_check'), []);
  db.close();
});

test('an image missing for a live post fails the backup, leaving nothing that looks complete', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  const [, broken] = await source.upload(2);
  fs.rmSync(fileIn(source.app.dataDir, `${broken}.png`));
  const dest = destDir(t);
  const r = await cli(['backup', dest], source.env);
  t.is(r.code, 1);
  t.regex(r.stderr, new RegExp(`the image file of post ${broken} is missing`));
  t.false(fs.existsSync(path.join(dest, 'latest')));
  t.deepEqual(fs.readdirSync(path.join(dest, 'snapshots')), []);
});
