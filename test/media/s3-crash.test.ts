/**
 * kill -9 of a server on the S3 store (issue 26) at the two moments that matter, then a restart:
 * - between the object write and the commit: the image's PUT has reached S3Proxy (the object is
 *   there) but its answer is held by the fault injector, so the post never commits;
 * - between the commit and the thumbnail: the upload was acknowledged with background thumbnails off.
 * After the restart: no orphan object, every acknowledged post complete (image and thumbnails).
 */
import test from 'ava';
import { S3MediaStore } from '../../src/media-store/s3-store.ts';
import { isolatedEnv } from '../backup/env.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { faultProxy } from '../helpers/s3-fault-proxy.ts';
import { sharedS3Env } from '../helpers/s3.ts';
import { cliUser, startChild, type ChildServer } from '../reliability/child-server.ts';

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

test('kill -9 between the object write and the commit, and between the commit and the thumbnails: after restart no orphan, every post complete', async (t) => {
  t.timeout(120_000);
  const s3 = await sharedS3Env();
  const proxy = await faultProxy(s3.S3_ENDPOINT);
  const bucket = new S3MediaStore({
    bucket: s3.MEDIA_STORE.slice(5).replace(/\/.*$/, ''),
    prefix: '',
    endpoint: s3.S3_ENDPOINT,
    region: s3.S3_REGION,
    accessKeyId: s3.S3_ACCESS_KEY_ID,
    secretAccessKey: s3.S3_SECRET_ACCESS_KEY,
    forcePathStyle: true,
  });
  // A DATA_DIR and index prefix of its own (removed after), on the S3 store through the fault injector.
  const env = { ...(await isolatedEnv(t, 's3-crash')), ...s3, S3_ENDPOINT: proxy.endpoint, BACKGROUND_THUMBNAILS: '0' };
  let server: ChildServer | undefined;
  t.teardown(async () => {
    proxy.heal();
    await server?.stop();
    await proxy.close();
    bucket.close();
  });
  const keys = async () => {
    const out: string[] = [];
    for await (const o of bucket.list('')) out.push(o.key);
    return out.sort();
  };

  const auth = { 'X-Access-Key': await cliUser(env, 's3_crash', 0x2 | 0x4) };

  // 1. Acknowledged uploads whose thumbnails are not made yet (background thumbnails off).
  server = await startChild(env);
  const acked: { id: string; ext: string }[] = [];
  for (const seed of [1, 2, 3]) {
    const res = await fetch(`${server.url}/api/post/`, {
      method: 'POST',
      headers: auth,
      body: uploadForm({ image: await randomImage(900 + seed, 90, 70) }),
    });
    t.is(res.status, 201);
    const post = (await res.json()) as { id: string; imageURL: string };
    acked.push({ id: post.id, ext: post.imageURL.slice(post.imageURL.lastIndexOf('.') + 1) });
  }
  t.is((await keys()).length, 3, 'images only: no thumbnail yet');

  // 2. An upload whose image PUT lands in the bucket but whose answer never comes back: killed there.
  proxy.inject({ kind: 'swallowAnswer', method: 'PUT' });
  const inFlight = fetch(`${server.url}/api/post/`, {
    method: 'POST',
    headers: auth,
    body: uploadForm({ image: await randomImage(999, 90, 70) }),
  }).catch(() => undefined);
  await until('the PUT to reach the store', () => proxy.swallowed.length > 0);
  await until('the object to be in the bucket', async () => (await keys()).length === 4);
  await server.kill9();
  await inFlight;
  proxy.heal();

  // 3. Restart with background thumbnails: recovery deletes the orphan, the queued thumbnails are made.
  server = await startChild({ ...env, BACKGROUND_THUMBNAILS: '1' });
  const wanted = acked
    .flatMap((p) => [
      `${p.id.slice(-2)}/${p.id}.${p.ext}`,
      `${p.id.slice(-2)}/${p.id}.320.webp`,
      `${p.id.slice(-2)}/${p.id}.1024.webp`,
    ])
    .sort();
  await until('every post complete and no orphan', async () => JSON.stringify(await keys()) === JSON.stringify(wanted));
  t.deepEqual(await keys(), wanted);
  for (const p of acked) {
    t.is((await fetch(`${server.url}/media/${p.id}.${p.ext}`)).status, 200);
    t.is((await fetch(`${server.url}/media/${p.id}.320.webp`)).status, 200);
  }
  const list = (await (await fetch(`${server.url}/api/post/?limit=10`)).json()) as { count?: number; total?: number };
  t.is(list.count ?? list.total, 3);
});
