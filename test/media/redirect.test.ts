/**
 * GET /media in redirect mode (MEDIA_REDIRECT=presigned, issue 26) on the suite's real S3Proxy: an
 * uploaded post's image and a thumbnail (made on demand: background thumbnails are off) answer 302
 * to a presigned GET with a private max-age under the URL's life; following it gives the stored
 * bytes (sha256) with the right type, Range included; unknown names, a wrong extension and a deleted
 * post are 404 without a Location; no signed URL reaches the server's log; the gallery's CSP allows
 * the bucket's origin. With the store failing, a queued thumbnail (whose object is looked up) is 503
 * and an image still redirects (existence comes from the database: the documented choice). On the
 * local store the setting stops the server at start-up (exit 2). The app reaches S3Proxy through a
 * fault injector (transparent until told otherwise; the presigned URLs name it too).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { faultProxy, type FaultProxy } from '../helpers/s3-fault-proxy.ts';
import { sharedS3Env } from '../helpers/s3.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { SERVER_JS } from '../helpers/compiled.ts';

const EXPIRES_S = 120;
const ROOT = new URL('../../', import.meta.url).pathname;
let app: TestApp;
let user: TestUser;
let env: Record<string, string>;
let proxy: FaultProxy;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test.before(async () => {
  const shared = await sharedS3Env();
  proxy = await faultProxy(shared.S3_ENDPOINT);
  env = { ...shared, S3_ENDPOINT: proxy.endpoint, S3_TIMEOUT_MS: '1500', S3_MAX_ATTEMPTS: '2' };
  app = await startTestApp({
    ...env,
    MEDIA_REDIRECT: 'presigned',
    MEDIA_REDIRECT_EXPIRES_S: String(EXPIRES_S),
    BACKGROUND_THUMBNAILS: '0',
  });
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
});

test.after.always(async () => {
  proxy?.heal();
  await app?.close();
  await proxy?.close();
});

async function upload(seed: number): Promise<{ id: string; image: string; bytes: Buffer }> {
  const bytes = await randomImage(seed, 80, 60);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: bytes }),
  });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const post = (await res.json()) as { id: string; image: string };
  return { id: post.id, image: post.image, bytes };
}

/** The redirect for a name: its Location and the max-age it may be kept for. */
async function redirectOf(t: import('ava').ExecutionContext, name: string): Promise<string> {
  const res = await app.request(`/media/${name}`, { redirect: 'manual' });
  t.is(res.status, 302, name);
  t.is(await res.text(), '');
  const maxAge = Number(/^private, max-age=(\d+)$/.exec(res.headers.get('cache-control') ?? '')?.[1] ?? NaN);
  t.true(maxAge > 0 && maxAge < EXPIRES_S, `max-age ${maxAge} within the URL's ${EXPIRES_S} s`);
  const location = res.headers.get('location')!;
  t.true(location.startsWith(`${env.S3_ENDPOINT}/`), location.slice(0, 80));
  t.regex(location, /X-Amz-Signature=/);
  return location;
}

test.serial('the image and a thumbnail redirect to the bucket; following gives the same bytes and type', async (t) => {
  const post = await upload(31_000);
  const location = await redirectOf(t, post.image);
  const direct = await fetch(location);
  t.is(direct.status, 200);
  t.is(direct.headers.get('content-type'), 'image/png');
  t.is(sha(Buffer.from(await direct.arrayBuffer())), sha(post.bytes));
  // A client that follows redirects (fetch's default) sees the image, Range included.
  const followed = await app.request(`/media/${post.image}`);
  t.is(followed.status, 200);
  t.is(sha(Buffer.from(await followed.arrayBuffer())), sha(post.bytes));
  const part = await app.request(`/media/${post.image}`, { headers: { Range: 'bytes=2-9' } });
  t.is(part.status, 206);
  t.deepEqual(Buffer.from(await part.arrayBuffer()), post.bytes.subarray(2, 10));

  // Background thumbnails are off: the first request makes it, then redirects to it.
  const thumb = `${post.id}.320.webp`;
  const thumbLocation = await redirectOf(t, thumb);
  const fromBucket = await fetch(thumbLocation);
  t.is(fromBucket.status, 200);
  t.is(fromBucket.headers.get('content-type'), 'image/webp');
  const thumbBytes = Buffer.from(await fromBucket.arrayBuffer());
  t.true(thumbBytes.length > 0);
  const again = await app.request(`/media/${thumb}`);
  t.is(again.status, 200);
  t.is(sha(Buffer.from(await again.arrayBuffer())), sha(thumbBytes));

  // Signed URLs never reach the log (the request log names the route, not the Location).
  const log = app.logs.join('\n');
  t.false(log.includes('X-Amz-Signature'));
  t.false(log.includes(location.split('?')[1]));
  t.false(log.includes(thumbLocation.split('?')[1]));

  // Pages that show media allow the bucket's origin, or the browser would refuse the redirect.
  const page = await app.request('/');
  t.true(
    (page.headers.get('content-security-policy') ?? '').includes(
      `img-src 'self' ${new URL(app.url).origin} ${new URL(location).origin} `,
    ),
  );
});

test.serial('unknown names, a wrong extension and a deleted post are 404 without a Location', async (t) => {
  const post = await upload(31_001);
  for (const name of [
    '00000000-0000-7000-8000-000000000000.png',
    '00000000-0000-7000-8000-000000000000.320.webp',
    `${post.id}.jpg`,
    'nope.png',
  ]) {
    const res = await app.request(`/media/${name}`, { redirect: 'manual' });
    t.is(res.status, 404, name);
    t.is(res.headers.get('location'), null);
  }
  t.is((await app.request(`/api/post/${post.id}`, { method: 'DELETE', headers: user.headers })).status, 204);
  for (const name of [post.image, `${post.id}.320.webp`])
    t.is((await app.request(`/media/${name}`, { redirect: 'manual' })).status, 404, name);
});

test.serial('the store failing: a queued thumbnail is 503 within the time-out, an image still redirects', async (t) => {
  const post = await upload(31_002);
  t.teardown(() => proxy.heal());
  proxy.inject({ kind: 'error500' });
  const started = Date.now();
  const thumb = await app.request(`/media/${post.id}.320.webp`, { redirect: 'manual' });
  t.is(thumb.status, 503);
  t.regex(((await thumb.json()) as { error: string }).error, /^the image store is unavailable/);
  t.true(Date.now() - started < 6000, `answered in ${Date.now() - started} ms`);
  t.is((await app.request(`/media/${post.image}`, { redirect: 'manual' })).status, 302);
  proxy.heal();
  t.is((await app.request(`/media/${post.id}.320.webp`)).status, 200);
});

test('on the local store the setting stops the server at start-up with a clear message', async (t) => {
  const dataDir = tempDir('redirect-local');
  const err = await promisify(execFile)(process.execPath, [SERVER_JS], {
    cwd: ROOT,
    env: { ...process.env, MEDIA_STORE: 'local', MEDIA_REDIRECT: 'presigned', DATA_DIR: dataDir, PORT: '0' },
    timeout: 30_000,
  }).then(
    () => undefined,
    (e: { code: number; stderr: string }) => e,
  );
  t.is(err?.code, 2);
  t.regex(err?.stderr ?? '', /imgpost: invalid configuration: MEDIA_REDIRECT="presigned": needs an S3 media store/);
});
