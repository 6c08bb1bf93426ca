/**
 * The S3 media store (src/media-store/s3-store.ts) against a real S3 server: S3Proxy with its
 * filesystem backend, fetched from Maven Central and run by tools/dev-services/s3proxy (test/helpers/s3.ts),
 * no mocks. What every store does (test/media/store-contract.ts: put from a buffer and from a file,
 * get whole and by range, head, delete, list by prefix), then what only S3 does: sha256 metadata and
 * Content-MD5, a key prefix inside the bucket, presigned PUT then GET with fetch (signed content type
 * enforced, expiry honoured). Faults: a missing bucket, wrong credentials; 500s, resets and late
 * answers (test/helpers/s3-fault-proxy.ts in front of the real server): retried, then a clear
 * failure; on an S3Proxy of their own: stopped (refused connections), paused with SIGSTOP (a hung
 * store: the kernel accepts, nothing answers), a read stalled mid-body. Each gives a
 * StoreUnavailableError (503) within the time-out, never a hang, and the store works again after.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import test from 'ava';
import { AppError } from '../../src/errors.ts';
import { StoreUnavailableError, mediaKey, type StoreFailure } from '../../src/media-store/media-store.ts';
import { parseS3Location, s3StoreConfigFromEnv } from '../../src/config.ts';
import { S3MediaStore } from '../../src/media-store/s3-store.ts';
import { faultProxy } from '../helpers/s3-fault-proxy.ts';
import { dedicatedS3, testS3, type TestS3 } from '../helpers/s3.ts';
import { keysOf as keys, postId as id, readAll, sha256, storeContract } from './store-contract.ts';

test.before(async () => {
  // The first use in a fresh cache downloads the jar (55 MB).
  await testS3();
});

// put/get/range/head/delete/list, as every store does; each test on a fresh bucket.
storeContract('s3', async () => (await (await testS3()).newStore()).store);

test('put records the sha256 as metadata and sends Content-MD5: the ETag is the MD5', async (t) => {
  const s3 = await testS3();
  const { store, bucket } = await s3.newStore();
  t.teardown(() => store.close());
  const bytes = randomBytes(4096);
  const key = mediaKey(`${id()}.gif`);
  const put = await store.put(key, { buffer: bytes }, { contentType: 'image/gif' });
  t.is(put.etag, `"${createHash('md5').update(bytes).digest('hex')}"`);
  t.like(await store.head(key), { sha256: sha256(bytes), contentType: 'image/gif', etag: put.etag });
  t.like(await store.get(key, { range: { start: 0, end: 0 } }), { sha256: sha256(bytes), contentType: 'image/gif' });
  // What Content-MD5 buys: bytes that do not match it (a corrupted transfer) are refused, not stored.
  const bad = mediaKey(`${id()}.gif`);
  const err = await t.throwsAsync(
    store.client.send(
      new PutObjectCommand({ Bucket: bucket, Key: bad, Body: bytes, ContentMD5: Buffer.alloc(16).toString('base64') }),
    ),
  );
  t.is(err!.name, 'BadDigest');
  t.is(await store.head(bad), undefined);
});

test('a key prefix inside the bucket: objects live under it and stay out of the keys', async (t) => {
  const s3 = await testS3();
  const bucket = await s3.newBucket();
  const store = new S3MediaStore(s3.config(bucket, 'media/'));
  const whole = new S3MediaStore(s3.config(bucket));
  t.teardown(() => {
    store.close();
    whole.close();
  });
  await store.put('aa/1.jpg', { buffer: Buffer.from('1') }, { contentType: 'image/jpeg' });
  await whole.put('elsewhere/5.jpg', { buffer: Buffer.from('5') }, { contentType: 'image/jpeg' });
  t.deepEqual(await keys(store, ''), ['aa/1.jpg']);
  t.deepEqual(await keys(whole, ''), ['elsewhere/5.jpg', 'media/aa/1.jpg']);
  t.is(store.location, `s3://${bucket}/media/`);
  t.is(store.locator('aa/1.jpg'), `s3://${bucket}/media/aa/1.jpg`);
});

test('a presigned PUT then a presigned GET, with fetch: signed type and length enforced, expiry honoured', async (t) => {
  const s3 = await testS3();
  const { store } = await s3.newStore({ prefix: 'p/' });
  t.teardown(() => store.close());
  const bytes = randomBytes(50_000);
  const key = mediaKey(`${id()}.webp`);

  const put = await store.presignPut(key, { expiresIn: 60, contentType: 'image/webp', contentLength: bytes.length });
  t.is(put.method, 'PUT');
  t.deepEqual(put.headers, { 'content-type': 'image/webp', 'content-length': String(bytes.length) });
  t.true(put.expiresAt.getTime() > Date.now());
  t.notRegex(put.url, /x-amz-checksum|x-amz-sdk-checksum/i, 'no checksum of an empty body is signed');

  // Another content type than the one signed is refused, and nothing is stored.
  const wrongType = await fetch(put.url, {
    method: 'PUT',
    body: bytes,
    headers: { ...put.headers, 'content-type': 'text/html' },
  });
  t.is(wrongType.status, 403);
  t.is(await store.head(key), undefined);

  const ok = await fetch(put.url, { method: 'PUT', body: bytes, headers: put.headers });
  t.is(ok.status, 200, await ok.text());
  const head = await store.head(key);
  t.like(head, { size: bytes.length, contentType: 'image/webp' });
  t.is(head!.sha256, undefined, 'a direct upload carries no recorded sha256: the server hashes what it reads');

  const get = await store.presignGet(key, { expiresIn: 60, responseCacheControl: 'private, max-age=60' });
  t.is(get.method, 'GET');
  const res = await fetch(get.url);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/webp');
  t.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
  const ranged = await fetch(get.url, { headers: { range: 'bytes=10-19' } });
  t.is(ranged.status, 206);
  t.is(ranged.headers.get('content-range'), `bytes 10-19/${bytes.length}`);
  t.deepEqual(Buffer.from(await ranged.arrayBuffer()), bytes.subarray(10, 20));

  // Without the signature, the bucket is private.
  const anonymous = await fetch(get.url.slice(0, get.url.indexOf('?')));
  t.is(anonymous.status, 403);

  const short = await store.presignGet(key, { expiresIn: 1 });
  const shortPut = await store.presignPut(mediaKey(`${id()}.webp`), { expiresIn: 1, contentType: 'image/webp' });
  await new Promise((r) => setTimeout(r, 2100));
  t.is((await fetch(short.url)).status, 403, 'an expired GET is refused');
  t.is(
    (await fetch(shortPut.url, { method: 'PUT', body: bytes, headers: shortPut.headers })).status,
    403,
    'an expired PUT is refused',
  );
});

test('a missing bucket and wrong credentials are store failures (503), not "not found"', async (t) => {
  const s3 = await testS3();
  const missing = new S3MediaStore(s3.config(`nobucket-${randomBytes(4).toString('hex')}`, '', { timeoutMs: 3000 }));
  const wrongKey = new S3MediaStore({
    ...s3.config(await s3.newBucket(), '', { timeoutMs: 3000 }),
    secretAccessKey: 'not-the-secret',
  });
  t.teardown(() => {
    missing.close();
    wrongKey.close();
  });

  const e1 = await t.throwsAsync(missing.check(), { instanceOf: StoreUnavailableError });
  t.is(e1!.reason, 'misconfigured');
  const e2 = await t.throwsAsync(missing.put('aa/x.jpg', { buffer: Buffer.from('x') }, { contentType: 'image/jpeg' }), {
    instanceOf: StoreUnavailableError,
  });
  t.is(e2!.reason, 'misconfigured');
  const e3 = await t.throwsAsync(wrongKey.head('aa/x.jpg'), { instanceOf: StoreUnavailableError });
  t.is(e3!.reason, 'denied');
  const e4 = await t.throwsAsync(wrongKey.check(), { instanceOf: StoreUnavailableError });
  t.is(e4!.reason, 'denied');
  // An AppError with the code src/http/errors.ts turns into 503, and a Retry-After.
  t.true(e3 instanceof AppError);
  t.is(e3!.code, 'store_unavailable');
  t.is(e3!.retryAfter, 1);
  t.like(e3!.details, { store: wrongKey.location, operation: 'head aa/x.jpg', reason: 'denied' });
});

test('settings: MEDIA_STORE and S3_* from the environment, one line naming a bad one', (t) => {
  t.is(s3StoreConfigFromEnv({}), undefined);
  t.is(s3StoreConfigFromEnv({ MEDIA_STORE: 'local' }), undefined);
  t.deepEqual(parseS3Location('s3://my-bucket'), { bucket: 'my-bucket', prefix: '' });
  t.deepEqual(parseS3Location('s3://my-bucket/a/b/'), { bucket: 'my-bucket', prefix: 'a/b/' });
  t.like(
    s3StoreConfigFromEnv({
      MEDIA_STORE: 's3://imgpost/media',
      S3_ENDPOINT: 'http://127.0.0.1:9390/',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    }),
    {
      bucket: 'imgpost',
      prefix: 'media/',
      endpoint: 'http://127.0.0.1:9390',
      region: 'us-east-1',
      forcePathStyle: true,
      timeoutMs: 10_000,
      maxAttempts: 3,
    },
  );
  t.like(s3StoreConfigFromEnv({ MEDIA_STORE: 's3://imgpost', S3_REGION: 'eu-west-1', S3_TIMEOUT_MS: '2500' }), {
    endpoint: undefined,
    forcePathStyle: false,
    region: 'eu-west-1',
    timeoutMs: 2500,
  });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 's3://Bad_Bucket' }), {
    message: /^invalid configuration: MEDIA_STORE="s3:\/\/Bad_Bucket": /,
  });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 'file:///x' }), { message: /MEDIA_STORE/ });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 's3://b-1/../x' }), { message: /MEDIA_STORE/ });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 's3://b-1', S3_ENDPOINT: 'localhost:9000' }), {
    message: /S3_ENDPOINT/,
  });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 's3://b-1', S3_FORCE_PATH_STYLE: 'maybe' }), {
    message: /S3_FORCE_PATH_STYLE/,
  });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 's3://b-1', S3_ACCESS_KEY_ID: 'k' }), {
    message: /S3_SECRET_ACCESS_KEY/,
  });
  t.throws(() => s3StoreConfigFromEnv({ MEDIA_STORE: 's3://b-1', S3_TIMEOUT_MS: '5s' }), { message: /S3_TIMEOUT_MS/ });
});

// Faults, on an S3Proxy of their own (the file's shared one keeps serving the tests above).
let faulty: TestS3 | undefined;
test.serial.before(async () => {
  faulty = await dedicatedS3();
});
test.after.always(async () => {
  faulty?.resume();
  await faulty?.close();
});

/** Runs `op`, expecting a StoreUnavailableError for `reason`; returns how long it took. */
async function failsWithin(
  t: import('ava').ExecutionContext,
  op: Promise<unknown>,
  reason: StoreFailure,
  withinMs: number,
  what: string,
): Promise<void> {
  const t0 = performance.now();
  const err = await t.throwsAsync(op, { instanceOf: StoreUnavailableError }, what);
  const ms = performance.now() - t0;
  t.is(err?.reason, reason, `${what}: ${err?.message} ${err?.describe()}`);
  t.true(ms < withinMs, `${what} took ${Math.round(ms)} ms, more than ${withinMs}`);
}

test.serial('a stopped store fails fast and clearly, and works again once restarted', async (t) => {
  const s3 = faulty!;
  const { store } = await s3.newStore({ timeoutMs: 2000 });
  t.teardown(() => store.close());
  const key = mediaKey(`${id()}.jpg`);
  await store.put(key, { buffer: Buffer.from('before') }, { contentType: 'image/jpeg' });

  await s3.stop();
  await failsWithin(
    t,
    store.put(mediaKey(`${id()}.jpg`), { buffer: Buffer.from('x') }, { contentType: 'image/jpeg' }),
    'unreachable',
    2000,
    'put',
  );
  await failsWithin(t, store.get(key), 'unreachable', 2000, 'get');
  await failsWithin(t, store.head(key), 'unreachable', 2000, 'head');
  await failsWithin(t, store.delete(key), 'unreachable', 2000, 'delete');
  await failsWithin(t, keys(store, ''), 'unreachable', 2000, 'list');
  await failsWithin(t, store.check(), 'unreachable', 2000, 'check');

  await s3.start();
  t.deepEqual(await readAll((await store.get(key))!.body), Buffer.from('before'));
  await t.notThrowsAsync(store.check());
});

test.serial('a hung store (SIGSTOP) fails with a time-out, not a hang; so does a read stalled mid-body', async (t) => {
  const s3 = faulty!;
  const timeoutMs = 1500;
  const { store, bucket } = await s3.newStore({ timeoutMs });
  // The large object is written with a patient store: on this shared box S3Proxy may take more than
  // the short time-out to answer a 48 MB put.
  const patient = new S3MediaStore(s3.config(bucket, '', { timeoutMs: 60_000 }));
  t.teardown(() => {
    s3.resume();
    store.close();
    patient.close();
  });
  const key = mediaKey(`${id()}.png`);
  // Large enough that the body cannot sit whole in the sockets' buffers when the server stops.
  const big = randomBytes(48 * 1024 * 1024);
  await patient.put(key, { buffer: big }, { contentType: 'image/png' });

  s3.pause();
  try {
    // A put's deadline is the time-out plus a second per MiB.
    await failsWithin(
      t,
      store.put(mediaKey(`${id()}.jpg`), { buffer: Buffer.from('x') }, { contentType: 'image/jpeg' }),
      'timeout',
      timeoutMs + 3000,
      'put',
    );
    await failsWithin(t, store.get(key), 'timeout', timeoutMs + 3000, 'get');
    await failsWithin(t, store.head(key), 'timeout', timeoutMs + 3000, 'head');
    await failsWithin(t, store.check(), 'timeout', timeoutMs + 3000, 'check');
  } finally {
    s3.resume();
  }
  t.is((await store.head(key))?.size, big.length, 'answers again once resumed');

  // The read has begun when the server stops: its body fails once idle for the time-out.
  const read = await store.get(key);
  const iterator = read!.body[Symbol.asyncIterator]();
  const first = await iterator.next();
  t.false(first.done);
  s3.pause();
  try {
    const t0 = performance.now();
    const drained = (async () => {
      for (;;) {
        if ((await iterator.next()).done) return 'ended';
      }
    })();
    const outcome = await drained.then(
      (v) => v,
      (err: Error) => `failed: ${err.message}`,
    );
    const ms = performance.now() - t0;
    t.regex(outcome, /^failed/, 'the stalled body fails rather than ending as if complete');
    t.true(ms < timeoutMs + 3000, `the stalled body failed after ${Math.round(ms)} ms`);
  } finally {
    s3.resume();
  }
});

test('a store answering 500, resetting connections or answering late: retried, then a clear failure within the time-out', async (t) => {
  const s3 = await testS3();
  const bucket = await s3.newBucket();
  const proxy = await faultProxy(s3.endpoint);
  // The bounds say "no hang", not a latency: generous enough for a loaded 2-core box.
  const timeoutMs = 3000;
  const store = new S3MediaStore(s3.config(bucket, '', { endpoint: proxy.endpoint, timeoutMs }));
  const direct = new S3MediaStore(s3.config(bucket));
  t.teardown(async () => {
    store.close();
    direct.close();
    await proxy.close();
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-s3-fault-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'upload');
  const bytes = randomBytes(200_000);
  fs.writeFileSync(file, bytes);

  // One 500, then the retry (the file read again from its start) succeeds.
  proxy.inject({ kind: 'error500' }, 1);
  const key = mediaKey(`${id()}.jpg`);
  const before = proxy.seen.length;
  await store.put(key, { path: file }, { contentType: 'image/jpeg' });
  t.deepEqual(
    proxy.seen.slice(before).map((r) => r.split(' ')[0]),
    ['PUT', 'PUT'],
  );
  t.is(sha256(await readAll((await direct.get(key))!.body)), sha256(bytes));

  // 500 on every attempt: after three, a server_error; nothing stored.
  proxy.inject({ kind: 'error500' });
  const failed = mediaKey(`${id()}.jpg`);
  await failsWithin(
    t,
    store.put(failed, { path: file }, { contentType: 'image/jpeg' }),
    'server_error',
    timeoutMs + 2000,
    'put answered 500',
  );
  await failsWithin(t, store.get(key), 'server_error', timeoutMs + 2000, 'get answered 500');
  proxy.heal();
  t.is(await direct.head(failed), undefined, 'no object behind a failed put');

  proxy.inject({ kind: 'reset' });
  await failsWithin(t, store.head(key), 'unreachable', timeoutMs + 2000, 'head with connections reset');
  proxy.inject({ kind: 'slow', ms: 5000 });
  await failsWithin(t, store.delete(key), 'timeout', timeoutMs + 2000, 'delete answered late');
  proxy.inject({ kind: 'hang' });
  await failsWithin(t, keys(store, ''), 'timeout', timeoutMs + 2000, 'list never answered');
  proxy.heal();
  t.is((await store.head(key))?.size, bytes.length, 'works again once healed');
});
