/**
 * The app on the S3 store (MEDIA_STORE=s3://..., issue 26), on the suite's real S3Proxy, through a
 * fault injector: uploads, GET /media (ETag, Range, 304, 416), thumbnails and deletes as objects;
 * then a store answering 500, hanging past the time-out and resetting connections during uploads,
 * reads and deletes: 503 (store_unavailable) within the time-out, no orphan object once the sweep
 * ran, nothing acknowledged lost.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { S3MediaStore } from '../../src/media-store/s3-store.ts';
import { startTestApp, thumbnailsSettled, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { faultProxy, type FaultProxy } from '../helpers/s3-fault-proxy.ts';
import { bucketStore, sharedS3Env } from '../helpers/s3.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { cli } from '../reliability/child-server.ts';
import { tempDir } from '../helpers/app.ts';

const TIMEOUT_MS = 1500;
let app: TestApp;
let proxy: FaultProxy;
let bucket: S3MediaStore;
let user: TestUser;
const acked: { id: string; image: string }[] = [];
let seed = 26_000;
let env: Record<string, string>;

test.before(async () => {
  env = await sharedS3Env();
  proxy = await faultProxy(env.S3_ENDPOINT);
  // The test's own view of the bucket, straight to S3Proxy (not through the faults).
  bucket = bucketStore(env);
  app = await startTestApp({
    ...env,
    S3_ENDPOINT: proxy.endpoint,
    S3_TIMEOUT_MS: String(TIMEOUT_MS),
    S3_MAX_ATTEMPTS: '2',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
  });
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
});

test.after.always(async () => {
  proxy?.heal();
  await app?.close();
  await proxy?.close();
  bucket?.close();
});

async function keys(): Promise<string[]> {
  const out: string[] = [];
  for await (const o of bucket.list('')) out.push(o.key);
  return out.sort();
}

async function upload(): Promise<Response> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(seed++, 80, 60) }),
  });
  if (res.status === 201) {
    const post = (await res.clone().json()) as { id: string; imageURL?: string; ext?: string };
    const image = await app.services.postRepository.getById(post.id)!;
    acked.push({ id: post.id, image: `${post.id}.${image.ext}` });
  }
  return res;
}

/** Every acknowledged post is complete: the image and its thumbnails are objects, served by /media. */
async function everyAckedComplete(t: import('ava').ExecutionContext): Promise<void> {
  await thumbnailsSettled(app);
  const present = new Set(await keys());
  for (const p of acked) {
    if (!app.services.postRepository.getById(p.id)) continue;
    t.true(present.has(`${p.id.slice(-2)}/${p.image}`), `image of ${p.id}`);
    t.is((await app.request(`/media/${p.image}`)).status, 200);
  }
}

/** Objects and rows match: every object belongs to an existing post (after the sweep). */
async function noOrphans(t: import('ava').ExecutionContext): Promise<void> {
  const swept = await app.services.images.sweep();
  t.is(swept.failed, 0);
  const posts = new Set(acked.filter((p) => app.services.postRepository.getById(p.id)).map((p) => p.id));
  const orphans = (await keys()).filter((k) => !posts.has(k.slice(3, 39)));
  t.deepEqual(orphans, []);
}

test.serial(
  'upload, GET /media with ETag, Range, 304 and 416, thumbnails and delete: all objects in the bucket',
  async (t) => {
    const res = await upload();
    t.is(res.status, 201);
    const { id, image } = acked.at(-1)!;
    const key = `${id.slice(-2)}/${image}`;
    t.true((await keys()).includes(key));
    const whole = await app.request(`/media/${image}`);
    t.is(whole.status, 200);
    const bytes = Buffer.from(await whole.arrayBuffer());
    const etag = whole.headers.get('etag')!;
    t.is(etag, `"${id}-${bytes.length.toString(16)}"`);
    t.is(whole.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.is(whole.headers.get('content-type'), 'image/png');
    t.is((await app.request(`/media/${image}`, { headers: { 'If-None-Match': etag } })).status, 304);
    const part = await app.request(`/media/${image}`, { headers: { Range: 'bytes=2-9' } });
    t.is(part.status, 206);
    t.is(part.headers.get('content-range'), `bytes 2-9/${bytes.length}`);
    t.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(2, 10));
    const tail = await app.request(`/media/${image}`, { headers: { Range: 'bytes=-4' } });
    t.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(-4));
    const past = await app.request(`/media/${image}`, { headers: { Range: `bytes=${bytes.length + 5}-` } });
    t.is(past.status, 416);
    t.is(past.headers.get('content-range'), `bytes */${bytes.length}`);
    // A thumbnail asked for at once is made on demand (from the object) and stored as one.
    const thumb = await app.request(`/media/${id}.320.webp`);
    t.is(thumb.status, 200);
    t.is(thumb.headers.get('content-type'), 'image/webp');
    await thumbnailsSettled(app);
    t.true((await keys()).filter((k) => k.startsWith(`${id.slice(-2)}/${id}.`)).length >= 2);
    t.is((await app.request('/media/00000000-0000-7000-8000-000000000000.png')).status, 404);

    const del = await app.request(`/api/post/${id}`, { method: 'DELETE', headers: user.headers });
    t.is(del.status, 204);
    t.deepEqual(
      (await keys()).filter((k) => k.includes(id)),
      [],
    );
    t.is((await app.request(`/media/${image}`)).status, 404);
  },
);

for (const [name, fault] of [
  ['answering 500', { kind: 'error500' }],
  ['slow past the time-out', { kind: 'slow', ms: TIMEOUT_MS + 1500 }],
  ['resetting connections (unreachable)', { kind: 'reset' }],
] as const) {
  test.serial(
    `store ${name} during uploads: 503 within the time-out, no orphan, nothing acknowledged lost`,
    async (t) => {
      t.is((await upload()).status, 201);
      // Its thumbnails first: a job failing under the fault would wait for its retry.
      await thumbnailsSettled(app);
      const before = app.services.postRepository.count();
      t.teardown(() => proxy.heal());
      proxy.inject(fault);
      const started = Date.now();
      const res = await upload();
      const took = Date.now() - started;
      t.is(res.status, 503, await res.clone().text());
      t.regex((await res.json()).error, /^the image store is unavailable/);
      t.true(took < TIMEOUT_MS * 3 + 2000, `answered in ${took} ms`);
      t.is(app.services.postRepository.count(), before);
      proxy.heal();
      await noOrphans(t);
      await everyAckedComplete(t);
    },
  );
}

test.serial(
  'reads while the store hangs or fails: 503 within the time-out, never a hang; served again once it is back',
  async (t) => {
    t.is((await upload()).status, 201);
    const { image } = acked.at(-1)!;
    await thumbnailsSettled(app);
    t.teardown(() => proxy.heal());
    for (const fault of [{ kind: 'hang' }, { kind: 'error500' }] as const) {
      proxy.inject(fault);
      const started = Date.now();
      const res = await app.request(`/media/${image}`);
      t.is(res.status, 503);
      t.is((await res.json()).error.startsWith('the image store is unavailable'), true);
      t.true(Date.now() - started < TIMEOUT_MS * 3 + 2000);
      proxy.heal();
    }
    t.is((await app.request(`/media/${image}`)).status, 200);
  },
);

test.serial(
  'a delete while the store fails commits; its objects stay journaled and the sweep deletes them once the store is back',
  async (t) => {
    t.is((await upload()).status, 201);
    const { id } = acked.at(-1)!;
    await thumbnailsSettled(app);
    t.teardown(() => proxy.heal());
    proxy.inject({ kind: 'error500' });
    t.is((await app.request(`/api/post/${id}`, { method: 'DELETE', headers: user.headers })).status, 204);
    t.true((await keys()).some((k) => k.includes(id)));
    // Still failing: the pass keeps the rows.
    t.true((await app.services.images.sweep()).failed > 0);
    proxy.heal();
    await noOrphans(t);
    await everyAckedComplete(t);
  },
);

/** Every object of a store with its sha256. */
async function contents(store: S3MediaStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const o of store.list('')) {
    const read = (await store.get(o.key))!;
    const hash = createHash('sha256');
    for await (const c of read.body) hash.update(c as Buffer);
    out[o.key] = hash.digest('hex');
  }
  return out;
}

test.serial(
  'backup reads the objects from the bucket; restore puts them into an empty bucket, byte for byte',
  async (t) => {
    t.is((await upload()).status, 201);
    await thumbnailsSettled(app);
    const dest = tempDir('imgpost-s3-backup');
    const restoredDir = path.join(tempDir('imgpost-s3-restore'), 'data');
    t.teardown(() => {
      fs.rmSync(dest, { recursive: true, force: true });
      fs.rmSync(path.dirname(restoredDir), { recursive: true, force: true });
    });
    const backedUp = await cli(['backup', dest], { ...env, DATA_DIR: app.dataDir, LOG_LEVEL: 'warn' });
    t.is(backedUp.code, 0, backedUp.stderr);
    const source = await contents(bucket);
    const snapshot = path.join(
      'snapshots',
      fs.readdirSync(path.join(dest, 'snapshots')).find((d) => !d.startsWith('.'))!,
    );
    const files = fs
      .readdirSync(path.join(dest, snapshot, 'files'), { recursive: true })
      .filter((f) => String(f).includes('.'));
    t.deepEqual(files.map(String).sort(), Object.keys(source).sort());

    const target = await sharedS3Env();
    const restored = await cli(['restore', path.join(dest, snapshot), '--skip-reindex', '--json'], {
      ...target,
      DATA_DIR: restoredDir,
      LOG_LEVEL: 'warn',
    });
    t.is(restored.code, 0, restored.stderr);
    const into = bucketStore(target);
    t.teardown(() => into.close());
    t.deepEqual(await contents(into), source);
    t.false(fs.existsSync(path.join(restoredDir, 'images')), 'no local copies left');
    // Not into a bucket that holds objects.
    const again = await cli(['restore', path.join(dest, snapshot), '--skip-reindex'], {
      ...target,
      DATA_DIR: `${restoredDir}-2`,
      LOG_LEVEL: 'warn',
    });
    t.is(again.code, 1);
    t.regex(again.stderr, /is not empty/);
    fs.rmSync(`${restoredDir}-2`, { recursive: true, force: true });
  },
);
