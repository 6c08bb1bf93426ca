/**
 * `imgpost backup` as a real process while a real server takes uploads and edits; then `imgpost
 * restore` into a fresh DATA_DIR and index prefix, and a server started there. Every post
 * acknowledged before the backup began is back with a byte-identical image and the metadata of one
 * consistent moment (no older than what was acknowledged before the backup began), every post in
 * the backup has its files, `imgpost verify` finds no drift, and no write of the storm failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { cli, cliUser, startChild, type ChildServer } from '../reliability/child-server.ts';
import { destDir, isolatedEnv } from './env.ts';

const BEFORE = 24;
const UPLOADERS = 2;
const EDITORS = 2;

interface Known {
  image: Buffer;
  /** post views by edit number: 0 is the upload's answer */
  views: Record<string, unknown>[];
  /** the last edit acknowledged before the backup began */
  ackedBeforeBackup: number;
}

/** The post as stored, without the URLs (they name the server). */
const stored = (view: Record<string, unknown>) => {
  const { imageURL: _u, thumbnails: _t, uploader: _up, ...rest } = view;
  return rest;
};

test('backup during an upload-and-edit storm, restored elsewhere: every earlier post intact, no drift, no failed write', async (t) => {
  t.timeout(300_000);
  const source = await isolatedEnv(t, 'backup-src');
  const target = await isolatedEnv(t, 'backup-dst');
  const dest = destDir(t);
  const servers: ChildServer[] = [];
  t.teardown(async () => {
    for (const s of servers) await s.stop();
  });

  const auth = { 'X-Access-Key': await cliUser(source, 'backup_user', 0x2 | 0x4 | 0x2000) };
  // Thumbnails beside the uploads rather than after them: the storm never pauses, and a thumbnail
  // not made yet when the backup runs is another test's case (edges.test.ts).
  const server = await startChild(source);
  servers.push(server);

  const upload = async (seed: number, text: string) => {
    const image = await randomImage(seed, 160, 120);
    const started = Date.now();
    const res = await fetch(`${server.url}/api/post/`, {
      method: 'POST',
      headers: auth,
      body: uploadForm({ image, metadata: { text, tags: ['e0'] }, force: '1' }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body, image, ms: Date.now() - started, at: Date.now() };
  };

  const known = new Map<string, Known>();
  for (let i = 0; i < BEFORE; i++) {
    const r = await upload(50_000 + i, `p${i} e0`);
    t.is(r.status, 201, JSON.stringify(r.body));
    known.set(r.body.id as string, { image: r.image, views: [r.body], ackedBeforeBackup: 0 });
  }

  // The storm: uploaders add posts; each editor edits its share of the earlier posts in turn, each
  // post's edits one after another, numbered, so a post's text and tags tell which edit it shows.
  let backupStarted = 0;
  let backupEnded = 0;
  const failures: string[] = [];
  const during: { ms: number; id: string; image: Buffer }[] = [];
  let stormUploads = 0;
  let stormEdits = 0;
  const ids = [...known.keys()];
  const storm = Promise.all([
    ...Array.from({ length: UPLOADERS }, async (_, c) => {
      for (let n = 0; !backupEnded; n++) {
        const r = await upload(60_000 + c * 1000 + n, `storm ${c}.${n}`);
        stormUploads++;
        if (r.status !== 201) failures.push(`upload ${r.status} ${JSON.stringify(r.body)}`);
        else if (backupStarted && r.at - r.ms > backupStarted)
          during.push({ ms: r.ms, id: r.body.id as string, image: r.image });
      }
    }),
    ...Array.from({ length: EDITORS }, async (_, c) => {
      const mine = ids.filter((_, i) => i % EDITORS === c);
      for (let n = 0; !backupEnded; n++) {
        const id = mine[n % mine.length];
        const post = known.get(id)!;
        const edit = post.views.length;
        const text = `p${ids.indexOf(id)} e${edit}`;
        const res = await fetch(`${server.url}/api/post/${id}`, {
          method: 'PUT',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ text, tags: [`e${edit}`] }),
        });
        const body = (await res.json()) as Record<string, unknown>;
        stormEdits++;
        if (res.status !== 200) failures.push(`edit ${res.status} ${JSON.stringify(body)}`);
        else {
          post.views.push(body);
          if (!backupStarted) post.ackedBeforeBackup = edit;
        }
      }
    }),
  ]);

  // Let the storm run a moment, then back up while it goes on. --max-rate keeps the file copy
  // going for several seconds, so uploads and edits overlap all of it.
  while (stormUploads < 4 || stormEdits < 8) await new Promise((r) => setTimeout(r, 20));
  backupStarted = Date.now();
  const backup = await cli(['backup', dest, '--max-rate', '40k', '--json'], source);
  backupEnded = Date.now();
  await storm;
  t.is(backup.code, 0, backup.stderr);
  const summary = JSON.parse(backup.stdout) as {
    posts: number;
    files: number;
    createdAt: string;
    missingThumbnails: number;
    deletedDuringBackup: number;
  };
  t.log(
    `backup took ${backupEnded - backupStarted} ms: ${summary.posts} posts, ${summary.files} files; storm: ${stormUploads} uploads (${during.length} during the backup), ${stormEdits} edits`,
  );
  t.deepEqual(failures, [], 'writes of the storm that failed');
  t.true(during.length >= 3, `only ${during.length} uploads ran during the backup`);
  const slowest = Math.max(...during.map((d) => d.ms));
  t.log(`slowest upload during the backup: ${slowest} ms`);
  t.true(slowest < 10_000, `an upload took ${slowest} ms during the backup`);
  t.is(summary.missingThumbnails, 0);
  t.is(summary.deletedDuringBackup, 0);

  // Restore into an empty DATA_DIR with its own index prefix, and serve it.
  const restored = await cli(['restore', dest, '--json'], target);
  t.is(restored.code, 0, restored.stderr);
  t.is(JSON.parse(restored.stdout).posts, summary.posts);
  const copy = await startChild(target);
  servers.push(copy);

  for (const [id, post] of known) {
    const res = await fetch(`${copy.url}/api/post/${id}`);
    t.is(res.status, 200, `post ${id} acknowledged before the backup is missing`);
    const got = stored((await res.json()) as Record<string, unknown>);
    // The state of one edit, as it was answered: text, tags, rating and updatedAt belong together.
    const edit = post.views.findIndex((v) => JSON.stringify(stored(v)) === JSON.stringify(got));
    t.true(
      edit >= post.ackedBeforeBackup,
      `post ${id}: restored ${JSON.stringify(got)} is not edit ${post.ackedBeforeBackup} or a later one`,
    );
    const media = await fetch(`${copy.url}/media/${got.image as string}`);
    t.is(media.status, 200);
    t.true(Buffer.from(await media.arrayBuffer()).equals(post.image), `image of ${id} differs`);
  }
  // Uploads acknowledged during the backup that made it into the snapshot: byte-identical too.
  for (const d of during) {
    const res = await fetch(`${copy.url}/api/post/${d.id}`);
    if (res.status === 404) continue;
    const { image } = (await res.json()) as { image: string };
    t.true(
      Buffer.from(await (await fetch(`${copy.url}/media/${image}`)).arrayBuffer()).equals(d.image),
      `image of ${d.id} differs`,
    );
  }

  // Every post in the restored database has its image and thumbnails.
  const db = new Database(path.join(target.DATA_DIR, 'imgpost.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT id, ext FROM posts').all() as { id: string; ext: string }[];
  db.close();
  t.is(rows.length, summary.posts);
  for (const r of rows)
    for (const name of [`${r.id}.${r.ext}`, `${r.id}.320.webp`, `${r.id}.1024.webp`]) {
      const res = await fetch(`${copy.url}/media/${name}`, { method: 'HEAD' });
      t.is(res.status, 200, `${name} is missing`);
    }
  // On the local store they are files of the restored DATA_DIR; on S3 (npm run test:s3) objects of its bucket, served
  // above.
  if (!target.MEDIA_STORE) t.is(fs.readdirSync(path.join(target.DATA_DIR, 'images')).length > 0, true);

  const verified = await cli(['verify', '--json'], target);
  t.is(verified.code, 0, `imgpost verify: ${verified.stderr}`);
  t.is(JSON.parse(verified.stdout).drift.length, 0);
  t.false(/"level":"error"/.test(server.output() + copy.output()), (server.output() + copy.output()).slice(-2000));
});
