/**
 * What restore refuses, with one line and nothing written: a DATA_DIR that holds data or that a server
 * owns, a damaged backup, an index prefix already in use. Secrets only with --include-secrets. And
 * the commands' usage: --help, missing arguments, bad options.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { acquireOwnerLock } from '../../src/db/owner-lock.ts';
import { cli } from '../reliability/child-server.ts';
import { destDir, isolatedEnv } from './env.ts';
import { startSource } from './source.ts';

const oneLine = (stderr: string) => stderr.trim().split('\n').length === 1;

test('restore refuses a DATA_DIR with data, one a server owns, a damaged backup and a used index prefix', async (t) => {
  t.timeout(180_000);
  const source = await startSource(t);
  await source.upload(3);
  const dest = destDir(t);
  const made = await cli(['backup', dest, '--json'], source.env);
  t.is(made.code, 0, made.stderr);
  const snapshot = (JSON.parse(made.stdout) as { path: string }).path;

  // Data in DATA_DIR: refused, and the file is untouched.
  const full = await isolatedEnv(t, 'restore-full');
  fs.mkdirSync(full.DATA_DIR, { recursive: true });
  fs.writeFileSync(path.join(full.DATA_DIR, 'imgpost.sqlite'), 'precious');
  const r1 = await cli(['restore', dest], full);
  t.is(r1.code, 1);
  t.regex(r1.stderr, /is not empty \(it holds imgpost\.sqlite\)/);
  t.true(oneLine(r1.stderr), r1.stderr);
  t.is(fs.readFileSync(path.join(full.DATA_DIR, 'imgpost.sqlite'), 'utf8'), 'precious');

  // A server owns DATA_DIR (its lock, held here as a server holds it): refused, naming it.
  const owned = await isolatedEnv(t, 'restore-owned');
  const lock = acquireOwnerLock(owned.DATA_DIR);
  lock.describe('http://127.0.0.1:1234');
  const r2 = await cli(['restore', dest], owned);
  lock.release();
  t.is(r2.code, 1);
  t.regex(r2.stderr, new RegExp(`in use by the imgpost server pid ${process.pid}`));
  t.true(oneLine(r2.stderr), r2.stderr);
  t.false(fs.existsSync(path.join(owned.DATA_DIR, 'imgpost.sqlite')));

  // The index prefix already has a posts index (the source's own): refused before any file is written.
  const samePrefix = await isolatedEnv(t, 'restore-prefix');
  samePrefix.ELASTICSEARCH_INDEX_PREFIX = source.env.ELASTICSEARCH_INDEX_PREFIX;
  const r3 = await cli(['restore', dest], samePrefix);
  t.is(r3.code, 1);
  t.regex(r3.stderr, /already exists; use another ELASTICSEARCH_INDEX_PREFIX or pass --replace-index/);
  t.false(fs.existsSync(path.join(samePrefix.DATA_DIR, 'imgpost.sqlite')));
  t.false(fs.existsSync(path.join(samePrefix.DATA_DIR, 'images')));
  // ... unless told to replace it: the alias then names the restored index.
  const replaced = await cli(['restore', dest, '--replace-index', '--json'], samePrefix);
  t.is(replaced.code, 0, replaced.stderr);
  const index = (JSON.parse(replaced.stdout) as { index: { name: string; posts: number } }).index;
  t.is(index.posts, 3);
  t.deepEqual(
    Object.keys(
      await source.app.services.es.indices.getAlias({ name: `${source.env.ELASTICSEARCH_INDEX_PREFIX}-posts` }),
    ),
    [index.name],
  );

  // A manifest that leaves out a post's image (checksums fine): the database check refuses it.
  const manifestFile = path.join(snapshot, 'manifest.json');
  const original = fs.readFileSync(manifestFile, 'utf8');
  const m = JSON.parse(original) as { files: { path: string }[]; counts: { files: number } };
  const image = m.files.find((f) => f.path.endsWith('.png'))!;
  fs.writeFileSync(
    manifestFile,
    JSON.stringify({
      ...m,
      files: m.files.filter((f) => f !== image),
      counts: { ...m.counts, files: m.counts.files - 1 },
    }),
  );
  const lacking = await isolatedEnv(t, 'restore-lacking');
  const r6 = await cli(['restore', dest, '--skip-reindex'], lacking);
  t.is(r6.code, 1);
  t.regex(r6.stderr, new RegExp(`but the backup lacks its image ${path.basename(image.path).replace('.', '\\.')}`));
  t.deepEqual(
    fs.readdirSync(lacking.DATA_DIR).filter((n) => !n.startsWith('server.')),
    [],
    'nothing written',
  );
  fs.writeFileSync(manifestFile, original);

  // What a killed restore leaves (its staging directory) does not count as data and is cleared.
  const rerun = await isolatedEnv(t, 'restore-rerun');
  fs.mkdirSync(path.join(rerun.DATA_DIR, '.restoring', 'images', 'ab'), { recursive: true });
  fs.writeFileSync(path.join(rerun.DATA_DIR, '.restoring', 'images', 'ab', 'half.png'), 'half');
  const r7 = await cli(['restore', dest, '--skip-reindex', '--json'], rerun);
  t.is(r7.code, 0, r7.stderr);
  t.is(JSON.parse(r7.stdout).posts, 3);
  t.false(fs.existsSync(path.join(rerun.DATA_DIR, '.restoring')));

  // One flipped byte in one image: refused, and what was written is removed again.
  const manifest = JSON.parse(fs.readFileSync(path.join(snapshot, 'manifest.json'), 'utf8')) as {
    files: { path: string }[];
  };
  const victim = path.join(snapshot, manifest.files[manifest.files.length - 1].path);
  const bytes = fs.readFileSync(victim);
  bytes[bytes.length >> 1] ^= 0xff;
  fs.writeFileSync(victim, bytes);
  const damaged = await isolatedEnv(t, 'restore-damaged');
  const r4 = await cli(['restore', dest], damaged);
  t.is(r4.code, 1);
  t.regex(r4.stderr, /does not match its checksum in the manifest: the backup is damaged/);
  t.deepEqual(
    fs.readdirSync(damaged.DATA_DIR).filter((n) => !n.startsWith('server.')),
    [],
    'nothing written',
  );

  // A backup from a newer release (a schema this one does not know).
  const good = JSON.parse(fs.readFileSync(path.join(snapshot, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(path.join(snapshot, 'manifest.json'), JSON.stringify({ ...good, schemaVersion: 999 }));
  const newer = await cli(['restore', snapshot], damaged);
  t.is(newer.code, 1);
  t.regex(newer.stderr, /schema version 999; this imgpost knows up to \d+: restore with a newer release/);

  // A manifest that is not one.
  fs.writeFileSync(path.join(snapshot, 'manifest.json'), '{"format":"something else"}');
  const r5 = await cli(['restore', snapshot], damaged);
  t.is(r5.code, 1);
  t.regex(r5.stderr, /is not an imgpost backup manifest/);
});

test('the session secret is in a backup only with --include-secrets', async (t) => {
  t.timeout(120_000);
  const source = await startSource(t);
  await source.upload(1);
  const secret = fs.readFileSync(path.join(source.app.dataDir, 'session-secret'), 'utf8');

  const without = destDir(t);
  const plain = await cli(['backup', without, '--json'], source.env);
  t.is(plain.code, 0, plain.stderr);
  t.is(JSON.parse(plain.stdout).sessionSecret, 'not included');
  t.false(fs.existsSync(path.join(JSON.parse(plain.stdout).path, 'session-secret')));
  const noSecret = await isolatedEnv(t, 'restore-nosecret');
  const r1 = await cli(['restore', without, '--skip-reindex', '--json'], noSecret);
  t.is(r1.code, 0, r1.stderr);
  t.is(JSON.parse(r1.stdout).sessionSecret, 'not in backup');
  t.false(fs.existsSync(path.join(noSecret.DATA_DIR, 'session-secret')));
  t.regex(r1.stderr, /run `imgpost reindex` before starting the server/);

  const withSecret = destDir(t);
  const full = await cli(['backup', withSecret, '--include-secrets', '--json'], source.env);
  t.is(full.code, 0, full.stderr);
  const copy = path.join(JSON.parse(full.stdout).path, 'session-secret');
  t.is(fs.readFileSync(copy, 'utf8'), secret);
  t.is(fs.statSync(copy).mode & 0o777, 0o600);
  const target = await isolatedEnv(t, 'restore-secret');
  const r2 = await cli(['restore', withSecret, '--skip-reindex'], target);
  t.is(r2.code, 0, r2.stderr);
  t.is(fs.readFileSync(path.join(target.DATA_DIR, 'session-secret'), 'utf8'), secret);
  t.is(fs.statSync(path.join(target.DATA_DIR, 'session-secret')).mode & 0o777, 0o600);
});

test('backup and restore usage: --help, missing or extra arguments, bad options, a destination inside DATA_DIR', async (t) => {
  const env = await isolatedEnv(t, 'backup-usage');
  for (const command of ['backup', 'restore']) {
    const help = await cli([command, '--help'], env);
    t.is(help.code, 0);
    t.regex(help.stdout, new RegExp(`^Usage: imgpost ${command} `));
    for (const args of [[], ['a', 'b'], ['a', '--nope']]) {
      const r = await cli([command, ...args], env);
      t.is(r.code, 2, `${command} ${args.join(' ')}: ${r.stderr}`);
      t.regex(r.stderr, /Usage:/);
    }
  }
  for (const bad of [
    ['--max-rate', 'fast'],
    ['--max-rate', '10'],
    ['--keep', '0'],
    ['--keep', '1.5'],
  ]) {
    const r = await cli(['backup', '/tmp/x', ...bad], env);
    t.is(r.code, 2, `${bad.join(' ')}: ${r.stderr}`);
  }
  const inside = await cli(['backup', path.join(env.DATA_DIR, 'backups')], env);
  t.is(inside.code, 1);
  t.regex(inside.stderr, /is inside DATA_DIR/);
  const none = await cli(['backup', destDir(t)], env);
  t.is(none.code, 1);
  t.regex(none.stderr, /no database at/);
});
