/**
 * Direct uploads (issue 26) on the suite's real S3Proxy: POST /api/post/upload-url, a presigned PUT
 * with fetch, then the create naming the key. Every refusal a multipart upload of the same bytes
 * gets, the direct upload gets too, with the same body; keys that do not exist, belong to another
 * user or have expired are 400; without the permission 401/403; an unclaimed key's object, and one
 * put again to a used key while its URL is good, are deleted once the grant has expired; a store failing while a create
 * reads the key is 503 and the key works once the store is back. On the local store the endpoint answers 409. The app
 * reaches S3Proxy through a fault injector (transparent until told otherwise; presigned URLs pass it too).
 */
import { createHash, randomUUID } from 'node:crypto';
import test from 'ava';
import type { S3MediaStore } from '../../src/media-store/s3-store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm, vector, type UploadOptions } from '../helpers/fixtures.ts';
import { faultProxy, type FaultProxy } from '../helpers/s3-fault-proxy.ts';
import { bucketStore, sharedS3Env } from '../helpers/s3.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { pngBomb } from '../reliability/fuzz-data.ts';

let app: TestApp;
let bucket: S3MediaStore;
let proxy: FaultProxy;
let alice: TestUser;
let bob: TestUser;
let seed = 126_000;

test.before(async () => {
  const env = await sharedS3Env();
  // Swept often, so that an unclaimed key's deletion is seen within a second or two.
  proxy = await faultProxy(env.S3_ENDPOINT);
  app = await startTestApp({
    ...env,
    S3_ENDPOINT: proxy.endpoint,
    S3_TIMEOUT_MS: '1500',
    S3_MAX_ATTEMPTS: '2',
    MEDIA_SWEEP_INTERVAL_MS: '200',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
  });
  bucket = bucketStore(env);
  alice = await createUser(app, 0x2 | 0x4);
  bob = await createUser(app, 0x2 | 0x4);
});

test.after.always(async () => {
  proxy?.heal();
  await app?.close();
  await proxy?.close();
  bucket?.close();
});

interface Grant {
  key: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  expiresAt: string;
}

async function grant(
  user: TestUser | undefined,
  body: Record<string, unknown> = { contentType: 'image/png' },
): Promise<Response> {
  return app.request('/api/post/upload-url', {
    method: 'POST',
    headers: { ...user?.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A grant for `user`, and the bytes put to it with the URL's own headers. */
async function put(
  user: TestUser,
  bytes: Buffer,
  body: Record<string, unknown> = { contentType: 'image/png' },
): Promise<Grant> {
  const res = await grant(user, body);
  if (res.status !== 200) throw new Error(`upload-url answered ${res.status}: ${await res.text()}`);
  const g = (await res.json()) as Grant;
  const stored = await fetch(g.url, { method: g.method, headers: g.headers, body: new Uint8Array(bytes) });
  if (stored.status !== 200) throw new Error(`the presigned PUT answered ${stored.status}: ${await stored.text()}`);
  return g;
}

function create(
  user: TestUser | undefined,
  key: string,
  o: { metadata?: unknown; force?: string } = {},
): Promise<Response> {
  const form = uploadForm(o);
  form.append('key', key);
  return app.request('/api/post/', { method: 'POST', headers: user?.headers, body: form });
}

const multipart = (o: UploadOptions) =>
  app.request('/api/post/', { method: 'POST', headers: alice.headers, body: uploadForm(o) });

async function uploadKeys(): Promise<string[]> {
  const out: string[] = [];
  for await (const o of bucket.list('uploads/')) out.push(o.key);
  return out;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sha = (b: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(b as ArrayBuffer))
    .digest('hex');

test.serial('a direct upload: presigned PUT, create naming the key, GET /media byte-identical', async (t) => {
  const image = await randomImage(seed++, 96, 64);
  const res0 = await grant(alice, { contentType: 'image/png', size: image.length });
  t.is(res0.status, 200);
  const g = (await res0.json()) as Grant;
  t.regex(g.key, /^[0-9a-f-]{36}$/);
  t.is(g.method, 'PUT');
  t.true(Date.parse(g.expiresAt) > Date.now());
  t.like(g.headers, { 'content-type': 'image/png', 'content-length': String(image.length) });
  // The URL is no secret to its user, but it must never reach the log.
  t.false(app.logs.some((line) => line.includes(g.url) || line.includes('X-Amz-Signature')));
  t.is((await fetch(g.url, { method: 'PUT', headers: g.headers, body: new Uint8Array(image) })).status, 200);

  const created = await create(alice, g.key, { metadata: { text: 'direct', tags: ['direct'] } });
  t.is(created.status, 201, await created.clone().text());
  const post = await created.json();
  t.like(post, { text: 'direct', tags: [{ name: 'direct' }], uploader: { id: alice.id } });
  const media = await fetch(post.imageURL);
  t.is(media.status, 200);
  t.is(sha(await media.arrayBuffer()), sha(image));
  // The uploaded object is gone once the post holds its own copy, and the key cannot be used again.
  t.deepEqual(await uploadKeys(), []);
  const again = await create(alice, g.key);
  t.is(again.status, 400);
  t.like((await again.json())[0], { path: ['key'] });
});

test.serial(
  'keys that do not exist, belong to another user or hold nothing are 400 on key; nothing is stored',
  async (t) => {
    const unknown = await create(alice, randomUUID());
    t.is(unknown.status, 400);
    const unknownBody = await unknown.json();
    t.like(unknownBody[0], { path: ['key'], code: 'custom' });
    t.is((await create(alice, 'not-a-key')).status, 400);

    // Bob's key is, to Alice, the same as one that does not exist.
    const bobs = await put(bob, await randomImage(seed++));
    const stolen = await create(alice, bobs.key);
    t.is(stolen.status, 400);
    t.deepEqual(
      (await stolen.json()).map((i: { message: string }) => i.message),
      unknownBody.map((i: { message: string }) => i.message),
    );

    const nothingPut = (await (await grant(alice)).json()) as Grant;
    const empty = await create(alice, nothingPut.key);
    t.is(empty.status, 400);
    t.regex((await empty.json())[0].message, /nothing was uploaded/);

    const both = uploadForm({ image: await randomImage(seed++) });
    both.append('key', bobs.key);
    t.is((await app.request('/api/post/', { method: 'POST', headers: alice.headers, body: both })).status, 400);
    t.is(await app.services.postRepository.count(), 1);
  },
);

test.serial(
  'a non-image, a 900 MP image, 4 MiB and 6 MiB objects, a duplicate: the same answers as multipart',
  async (t) => {
    const png32 = vector('grey-32x32.png');
    const cases: [string, Buffer, string][] = [
      ['a text file labelled image/png', Buffer.from('hello, this is not an image at all'), 'image/png'],
      ['a 30000x30000 PNG bomb', pngBomb, 'image/png'],
      ['an image of 4 MiB', Buffer.concat([png32, Buffer.alloc(4 * 1024 * 1024 - png32.length)]), 'image/png'],
      ['an object of 6 MiB', Buffer.alloc(6 * 1024 * 1024, 1), 'image/png'],
    ];
    for (const [label, bytes, type] of cases) {
      const viaForm = await multipart({ image: bytes, type });
      const g = await put(alice, bytes, { contentType: type });
      const direct = await create(alice, g.key);
      t.is(direct.status, viaForm.status, label);
      t.true([400, 413].includes(direct.status), label);
      const [a, b] = [await direct.json(), await viaForm.json()];
      // The body cap names the same limit; the 400 issues are identical.
      if (direct.status === 413) t.regex(a.error, /request body (too large|larger than)/, label);
      else t.deepEqual(a, b, label);
    }
    t.is((await grant(alice, { contentType: 'image/png', size: 4 * 1024 * 1024 })).status, 400);
    t.is((await grant(alice, { contentType: 'text/html' })).status, 400);

    // A near-duplicate is 409 with the same matches; the same key then goes through with force=1.
    const first = await multipart({ image: vector('rgb-200x150.png') });
    t.is(first.status, 201);
    const copy = await put(alice, vector('rgb-100x75-q70.jpg'), { contentType: 'image/jpeg' });
    const refused = await create(alice, copy.key);
    t.is(refused.status, 409);
    t.deepEqual(
      await refused.json(),
      await (await multipart({ image: vector('rgb-100x75-q70.jpg'), type: 'image/jpeg' })).json(),
    );
    const forced = await create(alice, copy.key, { force: '1' });
    t.is(forced.status, 201);
  },
);

test.serial(
  'the store failing while a create reads the key: 503, and the same key works once it is back',
  async (t) => {
    const g = await put(alice, await randomImage(seed++));
    proxy.inject({ kind: 'error500' });
    t.teardown(() => proxy.heal());
    const failed = await create(alice, g.key);
    t.is(failed.status, 503);
    t.regex((await failed.json()).error, /image store is unavailable/);
    proxy.heal();
    t.is((await create(alice, g.key)).status, 201);
  },
);

test.serial('without the create permission: 401 and 403, for the URL and for the create', async (t) => {
  const reader = await createUser(app, 0x4);
  t.is((await grant(undefined)).status, 401);
  t.is((await grant(reader)).status, 403);
  const g = await put(alice, await randomImage(seed++));
  t.is((await create(undefined, g.key)).status, 401);
  t.is((await create(reader, g.key)).status, 403);
  t.is((await app.request('/api/post/upload-url', { headers: alice.headers })).status, 405);
});

test.serial(
  'an expired key is 400; objects of unclaimed keys, and PUT again to a used one, are deleted after their time',
  async (t) => {
    // Used, then put again while its URL is still good: that object too must not outlive the grant.
    const used = await put(alice, await randomImage(seed++), { contentType: 'image/png', expiresIn: 3 });
    t.is((await create(alice, used.key)).status, 201);
    t.is(
      (await fetch(used.url, { method: 'PUT', headers: used.headers, body: new Uint8Array(await randomImage(seed++)) }))
        .status,
      200,
    );
    t.true((await uploadKeys()).includes(`uploads/${used.key}`));
    const short = await put(alice, await randomImage(seed++), { contentType: 'image/png', expiresIn: 1 });
    t.true((await uploadKeys()).includes(`uploads/${short.key}`));
    await until('the grant expired', async () => Date.now() > Date.parse(short.expiresAt) + 50);
    const expired = await create(alice, short.key);
    t.is(expired.status, 400);
    t.like((await expired.json())[0], { path: ['key'], code: 'expired' });
    // An expired URL is refused by the store itself.
    t.is(
      (
        await fetch(short.url, {
          method: 'PUT',
          headers: short.headers,
          body: new Uint8Array(await randomImage(seed++)),
        })
      ).status,
      403,
    );
    // Expiry plus the margin for a PUT still landing (as long as the grant lived, at most a minute), then the next
    // sweep.
    await until('the unclaimed upload was deleted', async () => !(await uploadKeys()).includes(`uploads/${short.key}`));
    t.true(Date.now() >= Date.parse(short.expiresAt) + 1000);
    await until(
      'the object put again to a used key was deleted',
      async () => !(await uploadKeys()).includes(`uploads/${used.key}`),
    );
    t.true(Date.now() >= Date.parse(used.expiresAt) + 3000);
  },
);

test.serial('with the local store, POST /api/post/upload-url is 409 and says to upload multipart', async (t) => {
  const local = await startTestApp({ MEDIA_STORE: 'local' });
  t.teardown(() => local.close());
  const user = await createUser(local, 0x2);
  const res = await local.request('/api/post/upload-url', { method: 'POST', headers: user.headers });
  t.is(res.status, 409);
  t.regex((await res.json()).error, /S3 media store.*multipart/);
});
