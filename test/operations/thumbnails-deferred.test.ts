/**
 * Thumbnails give way to uploads (THUMBNAIL_DEFER_MS): while an upload is under way the background
 * runner leaves queued jobs alone, makes every one of them once uploads pause, and still makes a job
 * that has waited its longest; a kill -9 while jobs wait for the uploads loses none of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { childDataDir, cliUser, ES_URL, freePort, startChild, type ChildServer } from '../reliability/child-server.ts';
import { eventually } from '../webhooks/receiver.ts';
import { THUMBNAIL_SIZES, thumbnailName } from '../../src/kernel/media-names.ts';

const thumbnailsOf = (app: TestApp, id: string) =>
  THUMBNAIL_SIZES.map((size) => fs.existsSync(app.services.images.pathOf(thumbnailName(id, size))));

/** The next upload stops right before its insert until `release()`: an upload stays under way. */
function holdNextUpload(app: TestApp): { reached: Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const at = new Promise<void>((r) => (reached = r));
  const hooks = app.services.postService.hooks;
  hooks.beforeInsert = async () => {
    hooks.beforeInsert = undefined;
    reached();
    await held;
  };
  return { reached: at, release };
}

async function uploader(app: TestApp) {
  const user = await createUser(app, 0x2);
  return async (seed: number) => {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(seed, 640, 480), force: '1' }),
    });
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
}

test('while an upload is under way queued thumbnails wait; once uploads pause every one is made', async (t) => {
  const app = await startTestApp({ THUMBNAIL_DEFER_MS: '600000' });
  t.teardown(() => app.close());
  const upload = await uploader(app);
  const hold = holdNextUpload(app);
  const slow = upload(9100);
  await hold.reached;
  const ids = [await upload(9101), await upload(9102), await upload(9103)];

  // The runner looks at the due jobs and leaves them, again and again.
  const queue = app.services.thumbnailQueue;
  const claim = queue.claim.bind(queue);
  let leftAlone = 0;
  queue.claim = (...args) => {
    const got = claim(...args);
    if (got.length === 0 && queue.hasDue()) leftAlone++;
    return got;
  };
  await eventually(() => leftAlone >= 3 || undefined, 30_000);
  t.is(queue.size(), 3, 'no job was taken while an upload was under way');
  for (const id of ids) t.deepEqual(thumbnailsOf(app, id), [false, false]);

  hold.release();
  ids.push(await slow);
  await eventually(() => queue.size() === 0 || undefined, 60_000);
  for (const id of ids) t.deepEqual(thumbnailsOf(app, id), [true, true], `post ${id}`);
});

test('a job that has waited THUMBNAIL_DEFER_MS is made even while uploads go on', async (t) => {
  const app = await startTestApp({ THUMBNAIL_DEFER_MS: '300' });
  t.teardown(() => app.close());
  const upload = await uploader(app);
  const hold = holdNextUpload(app);
  const slow = upload(9200);
  await hold.reached;
  const ids = [await upload(9201), await upload(9202)];
  await eventually(() => app.services.thumbnailQueue.size() === 0 || undefined, 60_000);
  for (const id of ids) t.deepEqual(thumbnailsOf(app, id), [true, true], `post ${id}`);
  hold.release();
  await slow;
});

test('kill -9 while thumbnails wait for a stream of uploads: after the restart every acknowledged post has them', async (t) => {
  t.timeout(240_000);
  const { dataDir, prefix } = childDataDir(t, 'thumb-deferred-crash');
  const env = {
    DATA_DIR: dataDir,
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    HASH_WORKERS: '2',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    THUMBNAIL_DEFER_MS: '600000',
  };
  let server: ChildServer | undefined;
  t.teardown(async () => {
    await server?.stop();
  });
  const headers = { 'X-Access-Key': await cliUser(env, 'deferred_user', 2) };
  const queued = () => {
    const db = new Database(path.join(dataDir, 'imgpost.sqlite'), { readonly: true });
    try {
      return db.prepare('SELECT count(*) FROM thumbnail_jobs').pluck().get() as number;
    } finally {
      db.close();
    }
  };

  server = await startChild({ ...env, PORT: String(await freePort()) });
  const url = server.url;
  // Two clients, each sending its next upload as soon as the last is answered, until the kill.
  const acknowledged: string[] = [];
  let killed = false;
  const client = async (base: number) => {
    for (let i = 0; !killed; i++) {
      const image = await randomImage(base + i, 640, 480);
      try {
        const res = await fetch(`${url}/api/post/`, {
          method: 'POST',
          headers,
          body: uploadForm({ image, force: '1' }),
        });
        if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
      } catch {
        // the kill cut this one off: it was never acknowledged
      }
    }
  };
  const clients = [client(9300), client(9400)];
  await eventually(() => acknowledged.length >= 8 || undefined, 120_000, 50);
  await server.kill9();
  killed = true;
  await Promise.all(clients);
  const waiting = queued();
  t.true(waiting > 0, 'thumbnail jobs were still waiting for the uploads at the kill');

  server = await startChild({ ...env, PORT: String(await freePort()) });
  const thumbs = acknowledged.flatMap((id) =>
    THUMBNAIL_SIZES.map((size) => path.join(dataDir, 'images', id.slice(-2), thumbnailName(id, size))),
  );
  await eventually(() => thumbs.every((f) => fs.existsSync(f)) || undefined, 120_000, 100);
  await eventually(() => queued() === 0 || undefined, 10_000, 100);
  t.pass(`${acknowledged.length} acknowledged, ${waiting} jobs waiting at the kill, all made after the restart`);
});
