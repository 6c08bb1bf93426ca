/**
 * Thumbnails of posts whose upload left them queued (docs/decisions.md §4: an upload makes its own
 * before its answer; BACKGROUND_THUMBNAILS=0 stages posts that did not, as posts from before that
 * rule are): a thumbnail asked for is made on demand, the background runner makes the rest at a
 * priority below hashing, and a kill -9 while they are queued still ends with thumbnails after the
 * restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import sharp from 'sharp';
import { PriorityTaskQueue, priorityOption } from '../../src/hashing/priority-queue.ts';
import { startTestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { childDataDir, cliUser, ES_URL, freePort, startChild, type ChildServer } from '../reliability/child-server.ts';
import { eventually } from '../webhooks/receiver.ts';
import { thumbnailName } from '../../src/kernel/media-names.ts';

test('the 201 comes before any thumbnail work; a thumbnail fetched straight after is 200 image/webp of the right size, made once', async (t) => {
  // The background runner is off, so nothing but the request can have made them.
  const app = await startTestApp({ BACKGROUND_THUMBNAILS: '0' });
  t.teardown(() => app.close());
  const user = await createUser(app, 0x2);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(8101, 1600, 1200) }),
  });
  t.is(res.status, 201);
  const post = (await res.json()) as { id: string; thumbnails: Record<string, string> };
  const files = ([320, 1024] as const).map((size) => app.services.images.pathOf(thumbnailName(post.id, size)));
  t.true(
    files.every((f) => !fs.existsSync(f)),
    'no thumbnail was made on the upload path',
  );
  t.is(app.services.thumbnailQueue.size(), 1, 'the work is queued with the post');

  // Both sizes, concurrently and repeatedly: each answers 200, and the work is done once.
  let made = 0;
  const real = app.services.hashPool.thumbnails.bind(app.services.hashPool);
  app.services.hashPool.thumbnails = (...args) => {
    made++;
    return real(...args);
  };
  const got = await Promise.all(
    [...Array(6)].map(async (_, i) => {
      const size = i % 2 ? '1024' : '320';
      const r = await fetch(post.thumbnails[size]);
      return {
        size,
        status: r.status,
        type: r.headers.get('content-type'),
        meta: await sharp(Buffer.from(await r.arrayBuffer())).metadata(),
      };
    }),
  );
  for (const g of got) {
    t.is(g.status, 200);
    t.is(g.type, 'image/webp');
    t.deepEqual([g.meta.width, g.meta.height], g.size === '320' ? [320, 240] : [1024, 768]);
  }
  t.is(made, 1);
  t.is(app.services.thumbnailQueue.size(), 0, 'the queued job is done');
  // A thumbnail of a post that does not exist is still 404.
  t.is((await app.request('/media/01900000-0000-7000-8000-000000000bad.320.webp')).status, 404);
});

test('the background runner makes queued thumbnails without any request', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const user = await createUser(app, 0x2);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(8200 + i, 800, 600) }),
    });
    t.is(res.status, 201);
    ids.push((await res.json()).id);
  }
  await eventually(() => app.services.thumbnailQueue.size() === 0 || undefined, 30_000);
  for (const id of ids)
    for (const size of [320, 1024] as const) t.true(fs.existsSync(app.services.images.pathOf(thumbnailName(id, size))));
});

test('pool priority: a waiting hash always runs before waiting background thumbnail work', (t) => {
  const q = new PriorityTaskQueue();
  const task = (name: string, priority?: 'urgent' | 'background') =>
    ({ name, ...(priority ? priorityOption(priority) : {}) }) as never;
  const b1 = task('b1', 'background');
  const b2 = task('b2', 'background');
  q.push(b1);
  q.push(task('h1'));
  q.push(b2);
  q.push(task('h2', 'urgent'));
  t.is(q.size, 4);
  q.remove(b2);
  const order: string[] = [];
  for (let next = q.shift(); next; next = q.shift()) order.push((next as unknown as { name: string }).name);
  t.deepEqual(order, ['h1', 'h2', 'b1']);
});

test('kill -9 between the 201 and the thumbnail work: thumbnails are made after the restart', async (t) => {
  t.timeout(240_000);
  const { dataDir, prefix } = childDataDir(t, 'thumb-crash');
  const env = {
    DATA_DIR: dataDir,
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    HASH_WORKERS: '1',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
  };
  let server: ChildServer | undefined;
  t.teardown(async () => {
    await server?.stop();
  });
  const headers = { 'X-Access-Key': await cliUser(env, 'thumb_user', 2) };

  // First life: thumbnails left to the background, which is off, so the kill lands before any.
  server = await startChild({ ...env, PORT: String(await freePort()), BACKGROUND_THUMBNAILS: '0' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${server.url}/api/post/`, {
      method: 'POST',
      headers,
      body: uploadForm({ image: await randomImage(8300 + i, 900, 600) }),
    });
    t.is(res.status, 201);
    ids.push((await res.json()).id);
  }
  await server.kill9();
  const thumbs = ids.flatMap((id) =>
    ([320, 1024] as const).map((size) => path.join(dataDir, 'images', id.slice(-2), thumbnailName(id, size))),
  );
  t.true(
    thumbs.every((f) => !fs.existsSync(f)),
    'the crash came before any thumbnail',
  );
  const queued = () => {
    const db = new Database(path.join(dataDir, 'imgpost.sqlite'), { readonly: true });
    try {
      return db.prepare('SELECT count(*) FROM thumbnail_jobs').pluck().get() as number;
    } finally {
      db.close();
    }
  };
  t.is(queued(), 5, 'the work survived the crash in the database');

  // Second life, with the background runner: it finds the queued work on its own.
  server = await startChild({ ...env, PORT: String(await freePort()) });
  await eventually(() => thumbs.every((f) => fs.existsSync(f)) || undefined, 60_000, 100);
  await eventually(() => queued() === 0 || undefined, 10_000, 100);
  const meta = await sharp(thumbs[0]).metadata();
  t.deepEqual([meta.format, meta.width, meta.height], ['webp', 320, 213]);
});
