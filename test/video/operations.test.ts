/**
 * docs/decisions.md §21 in operations, as an operator runs them (the compiled CLI as a child process):
 * rethumb, reindex, verify, import of a directory with a video, backup and restore carry moving
 * pictures; `imgpost --version` names the ffmpeg in use.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { startTestApp, tempDir, thumbnailsSettled, type TestApp } from '../helpers/app.ts';
import { CLIPS, ffmpegClip, lavfi, removeClips } from '../helpers/clips.ts';
import { uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { imgpost } from '../cli/run-cli.ts';
import { backUpAndRestore } from '../backup/env.ts';
import { cli } from '../reliability/child-server.ts';

let app: TestApp;
const posted: { id: string; image: string; bytes: Buffer }[] = [];

test.before(async () => {
  // The commands run here are given DATA_DIR alone: the local store (test/backup runs them on S3).
  app = await startTestApp({ MEDIA_STORE: 'local' });
  const user = await createUser(app, 0x2);
  for (const name of ['vp8-opus.webm', 'anim.gif'] as const) {
    const bytes = fs.readFileSync(await CLIPS[name]!.make());
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: { 'X-Access-Key': user.accessKey },
      body: uploadForm({ image: bytes, type: 'application/octet-stream' }),
    });
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    const post = await res.json();
    posted.push({ id: post.id, image: post.image, bytes });
  }
  await thumbnailsSettled(app);
});
test.after.always(async () => {
  await app?.close();
  removeClips();
});

const searchKinds = async (value: string) => {
  const res = await app.request('/image/search', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ conditions: [{ type: 'mediaKind', value }] }),
  });
  return (await res.json()).data.total as number;
};

test.serial('rethumb remakes the poster thumbnails, reindex keeps the media fields, verify is clean', async (t) => {
  const before = await Promise.all(
    posted.map(async (p) => Buffer.from(await (await app.request(`/media/${p.id}.320.webp`)).arrayBuffer())),
  );
  const rethumb = await imgpost(app, 'rethumb', '--json');
  t.is(rethumb.code, 0, rethumb.stderr);
  t.like(JSON.parse(rethumb.stdout), { posts: 2, regenerated: 2, failed: [] });
  const after = await Promise.all(
    posted.map(async (p) => Buffer.from(await (await app.request(`/media/${p.id}.320.webp`)).arrayBuffer())),
  );
  // The same poster frame, so the same thumbnails.
  t.deepEqual(after, before);

  const reindex = await imgpost(app, 'reindex', '--json');
  t.is(reindex.code, 0, reindex.stderr);
  t.is(await searchKinds('video'), 1);
  t.is(await searchKinds('animation'), 1);
  const verify = await imgpost(app, 'verify', '--json');
  t.is(verify.code, 0, verify.stdout.slice(0, 2000));
  t.true(JSON.parse(verify.stdout).clean);
});

test.serial('imgpost import takes the videos of a directory; --version names ffmpeg', async (t) => {
  const dir = tempDir('imgpost-import-video');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(
    await ffmpegClip('import.webm', [...lavfi('testsrc=s=160x120:r=25:d=2'), '-vf', 'hflip', '-c:v', 'libvpx']),
    path.join(dir, 'clip.webm'),
  );
  const imported = await imgpost(app, 'import', dir, '--json');
  t.is(imported.code, 0, imported.stderr);
  // A file without gallery-dl's metadata is imported bare (docs/decisions.md §22).
  t.like(JSON.parse(imported.stdout), { bare: 1, bareDuplicates: 0, refused: [] }, imported.stdout);
  const db = app.services.db;
  t.is(db.prepare("SELECT count(*) FROM posts WHERE media_kind = 'video'").pluck().get(), 2);

  const version = await imgpost(undefined, '--version');
  t.is(version.code, 0, version.stderr);
  t.regex(
    version.stdout,
    /^imgpost \d+\.\d+\.\d+\nffmpeg: ffmpeg version \S+ .*\((\S+), (system|setting|npm)\)\nffprobe: /,
  );
});

test.serial('backup and restore carry the files byte for byte, their media facts and frame hashes', async (t) => {
  t.timeout(180_000);
  // The files are read back from the restored directory: the local store's (the S3 store's backups are test/backup's).
  if (app.services.config.s3) {
    t.pass('the S3 store is backed up by the backup tests of test/backup');
    return;
  }
  const env = {
    DATA_DIR: app.dataDir,
    ELASTICSEARCH_INDEX_PREFIX: app.services.config.elasticsearch.indexPrefix,
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277',
  };
  const target = await backUpAndRestore(t, env, 'restore-video');
  const db = new Database(path.join(target.DATA_DIR!, DATABASE_FILE), { readonly: true });
  try {
    for (const p of posted) {
      const [file] = fs
        .readdirSync(path.join(target.DATA_DIR!, 'images'), { recursive: true, encoding: 'utf8' })
        .filter((f) => path.basename(f) === p.image);
      t.truthy(file, p.image);
      t.true(fs.readFileSync(path.join(target.DATA_DIR!, 'images', file!)).equals(p.bytes), p.image);
      const row = db
        .prepare(
          'SELECT p.media_kind AS kind, f.frames FROM posts p JOIN post_frames f ON f.post_seq = p.seq WHERE p.id = ?',
        )
        .get(p.id) as { kind: string; frames: string };
      t.true(['video', 'animation'].includes(row.kind));
      t.is(JSON.parse(row.frames).length, 8);
    }
  } finally {
    db.close();
  }
  const verified = await cli(['verify', '--json'], target);
  t.is(verified.code, 0, verified.stdout.slice(0, 2000));
});
