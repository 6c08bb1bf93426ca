/**
 * A backup killed with -9 part-way leaves nothing `imgpost restore` accepts: not the destination
 * (no `latest`), not the partial snapshot (no manifest). After a complete backup, a later killed one
 * leaves the destination restoring the complete one, and the next backup clears the leftovers.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { cli } from '../reliability/child-server.ts';
import { eventually } from '../webhooks/receiver.ts';
import { destDir, isolatedEnv } from './env.ts';
import { startSource, type Source } from './source.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

const partials = (dest: string) => {
  try {
    return fs.readdirSync(path.join(dest, 'snapshots')).filter((n) => n.startsWith('.partial-'));
  } catch {
    return [];
  }
};

const countFiles = (dir: string): number =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .reduce((n, e) => n + (e.isDirectory() ? countFiles(path.join(dir, e.name)) : 1), 0)
    : 0;

/** Starts a slow backup (1 KiB/s), waits until it has copied a few files, then kills it with -9. */
async function killMidway(source: Source, dest: string): Promise<string> {
  const child = spawn(process.execPath, [CLI_JS, 'backup', dest, '--max-rate', '1k'], {
    cwd: ROOT,
    env: { ...process.env, ...source.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The condition, not a sleep: the copy phase began and some files are in the partial snapshot.
  await eventually(
    () =>
      stderr.includes('backup files') &&
      partials(dest).some((p) => countFiles(path.join(dest, 'snapshots', p, 'files')) >= 3),
    60_000,
    20,
  ).catch(() => {
    throw new Error(`the backup never got going: ${stderr}`);
  });
  child.kill('SIGKILL');
  await exited;
  return path.join(dest, 'snapshots', partials(dest)[0]);
}

test('a backup killed mid-way leaves no destination restore accepts; a complete one stays the one restored', async (t) => {
  t.timeout(180_000);
  const source = await startSource(t);
  await source.upload(8);
  const dest = destDir(t);

  const partial = await killMidway(source, dest);
  t.false(fs.existsSync(path.join(dest, 'latest')), 'latest names no snapshot');
  t.false(fs.existsSync(path.join(partial, 'manifest.json')));

  const target = await isolatedEnv(t, 'restore-killed');
  for (const src of [dest, partial]) {
    const r = await cli(['restore', src], target);
    t.is(r.code, 1, r.stderr);
    t.regex(r.stderr, /holds no complete backup/);
    t.is(r.stderr.trim().split('\n').length, 1, 'one line');
    t.false(fs.existsSync(path.join(target.DATA_DIR, 'imgpost.sqlite')));
  }

  // A complete backup clears the leftover, then a later one is killed: restore gets the complete one.
  const done = await cli(['backup', dest, '--json'], source.env);
  t.is(done.code, 0, done.stderr);
  t.deepEqual(partials(dest), [], 'the partial snapshot of the killed run is gone');
  const first = JSON.parse(done.stdout) as { posts: number; createdAt: string; snapshot: string };
  t.is(first.posts, 8);
  await source.upload(3);
  await killMidway(source, dest);
  t.is(fs.readFileSync(path.join(dest, 'latest'), 'utf8').trim(), first.snapshot);

  const restored = await cli(['restore', dest, '--json'], target);
  t.is(restored.code, 0, restored.stderr);
  const summary = JSON.parse(restored.stdout) as { posts: number; createdAt: string };
  t.is(summary.posts, 8);
  t.is(summary.createdAt, first.createdAt);
});
