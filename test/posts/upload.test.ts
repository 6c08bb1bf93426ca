import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, thumbnailsSettled, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm, vector, VECTORS, type UploadOptions } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let user: TestUser;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
});
test.after.always(() => app?.close());

const upload = (o: UploadOptions, key = user.accessKey) =>
  app.request('/api/post/', { method: 'POST', headers: { 'X-Access-Key': key }, body: uploadForm(o) });

/** Files and rows, to prove a refused request stored nothing. */
async function fingerprint() {
  await thumbnailsSettled(app);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else files.push(path.join(dir, e.name));
    }
  };
  // The media store's objects (DATA_DIR/images, or the bucket under IMGPOST_TEST_MEDIA_STORE=s3).
  for await (const o of app.services.images.store.list('')) files.push(o.key);
  walk(path.join(app.dataDir, 'tmp'));
  const db = app.services.db;
  return {
    files: files.sort(),
    posts: db.prepare('SELECT count(*) FROM posts').pluck().get(),
    tags: db.prepare('SELECT count(*) FROM tags').pluck().get(),
    outbox: db.prepare('SELECT count(*) FROM outbox').pluck().get(),
  };
}

test.serial('every hash vector is reproduced through POST /api/post/', async (t) => {
  for (const [name, hash] of Object.entries(VECTORS)) {
    const type = name.endsWith('.jpg') ? 'image/jpeg' : 'image/png';
    const res = await upload({ image: vector(name), type, force: '1', metadata: { text: name } });
    t.is(res.status, 201, name);
    const post = await res.json();
    t.is(post.imageHash, hash, name);
    t.is(post.image, `${post.id}.${name.endsWith('.jpg') ? 'jpg' : 'png'}`);
    t.is(post.imageURL, `${app.url}/media/${post.image}`);
    t.is(post.text, name);
    t.is(post.rating, 'none');
    t.deepEqual(post.tags, []);
    t.is(post.uploaderId, user.id);
    t.like(post.uploader, { id: user.id, name: user.name, accessKey: user.accessKey });
    t.false('passwordHash' in post.uploader);
    t.regex(post.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    t.regex(post.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
});

test.serial('a re-encoded copy is 409 unless force is 1', async (t) => {
  const fresh = await startTestApp();
  t.teardown(() => fresh.close());
  const u = await createUser(fresh);
  const send = (o: UploadOptions) =>
    fresh.request('/api/post/', { method: 'POST', headers: u.headers, body: uploadForm(o) });
  const original = await send({ image: vector('rgb-200x150.png') });
  t.is(original.status, 201);
  const first = await original.json();
  for (const force of [undefined, '0', 'false']) {
    const res = await send({ image: vector('rgb-100x75-q70.jpg'), type: 'image/jpeg', force });
    t.is(res.status, 409, `force=${force}`);
    t.deepEqual(await res.json(), [
      { image: first.image, imageURL: first.imageURL, id: first.id, imageHash: first.imageHash },
    ]);
  }
  const forced = await send({ image: vector('rgb-100x75-q70.jpg'), type: 'image/jpeg', force: '1' });
  t.is(forced.status, 201);
  // Closest first: the exact copy (0 bits) before the re-encoded one (2 bits).
  const third = await send({ image: vector('rgb-200x150-exif6.jpg'), type: 'image/jpeg' });
  t.is(third.status, 409);
  const body = await third.json();
  t.deepEqual(
    body.map((m: { id: string }) => m.id),
    [first.id, (await forced.json()).id],
  );
  t.is((await send({ image: vector('grey-32x32.png'), force: 'yes' })).status, 400);
});

test.serial('bad uploads are 400 with the issue array and store nothing', async (t) => {
  const before = await fingerprint();
  const jpeg = vector('rgb-100x75-q70.jpg');
  // Each case with the issue it must produce: a 400 for the wrong reason fails.
  const cases: [string, UploadOptions, { code: string; path: (string | number)[]; message: RegExp }][] = [
    [
      'an image of 4 MiB',
      {
        image: Buffer.concat([
          vector('grey-32x32.png'),
          Buffer.alloc(4 * 1024 * 1024 - vector('grey-32x32.png').length),
        ]),
      },
      { code: 'too_big', path: ['image'], message: /smaller than 4194304 bytes/ },
    ],
    [
      'an SVG',
      {
        image: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
        ),
        type: 'image/svg+xml',
      },
      { code: 'custom', path: ['image'], message: /not an accepted image format \(svg\)/ },
    ],
    [
      'a text file labelled image/png',
      { image: Buffer.from('hello, this is not an image at all'), type: 'image/png' },
      { code: 'custom', path: ['image'], message: /not an accepted image format/ },
    ],
    [
      'a truncated JPEG',
      { image: jpeg.subarray(0, Math.floor(jpeg.length / 2)), type: 'image/jpeg' },
      { code: 'custom', path: ['image'], message: /corrupt or truncated/ },
    ],
    [
      'bad metadata JSON',
      { image: await randomImage(1), rawMetadata: '{"text": ' },
      { code: 'invalid_json', path: ['metadata'], message: /not valid JSON/ },
    ],
    [
      'an unknown rating',
      { image: await randomImage(2), metadata: { rating: 'spicy' } },
      { code: 'invalid_enum_value', path: ['rating'], message: /spicy/ },
    ],
    [
      'a number as text',
      { image: await randomImage(3), metadata: { text: 42 } },
      { code: 'invalid_type', path: ['text'], message: /Expected string, received number/ },
    ],
    [
      'an unknown metadata key',
      { image: await randomImage(4), metadata: { text: 'x', colour: 'red' } },
      { code: 'unrecognized_keys', path: [], message: /colour/ },
    ],
    [
      '65 tags',
      { image: await randomImage(5), metadata: { tags: Array.from({ length: 65 }, (_, i) => `t${i}`) } },
      { code: 'too_big', path: ['tags'], message: /at most 64 tags/ },
    ],
    [
      'a tag with a space',
      { image: await randomImage(6), metadata: { tags: ['two words'] } },
      { code: 'invalid_string', path: ['tags', 0], message: /whitespace/ },
    ],
    ['no image part', { metadata: { text: 'x' } }, { code: 'invalid_type', path: ['image'], message: /required/ }],
  ];
  for (const [label, o, want] of cases) {
    const res = await upload(o);
    t.is(res.status, 400, label);
    const body = await res.json();
    t.true(Array.isArray(body) && body.length > 0, label);
    for (const issue of body) {
      t.deepEqual(Object.keys(issue).sort(), ['code', 'expected', 'message', 'path', 'received'], label);
      t.true(Array.isArray(issue.path), label);
    }
    t.is(body[0].code, want.code, label);
    t.deepEqual(body[0].path, want.path, label);
    t.regex(body[0].message, want.message, label);
  }
  const numberAsText = await upload({ image: await randomImage(3), metadata: { text: 42 } });
  t.like((await numberAsText.json())[0], {
    code: 'invalid_type',
    expected: 'string',
    received: 'number',
    path: ['text'],
  });
  t.deepEqual(await fingerprint(), before);
});

test.serial('a body over the 5 MiB cap is 413', async (t) => {
  const res = await upload({ image: Buffer.alloc(6 * 1024 * 1024, 1) });
  t.is(res.status, 413);
  t.regex((await res.json()).error, /request body (too large|larger than)/);
});

test.serial('20 concurrent uploads of one new image: exactly one 201', async (t) => {
  const image = await randomImage(777, 80, 60);
  const statuses = await Promise.all(Array.from({ length: 20 }, () => upload({ image }).then((r) => r.status)));
  t.is(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
  t.is(statuses.filter((s) => s === 409).length, 19);
});

test.serial('the real format wins over the declared type; metadata defaults and tag creation', async (t) => {
  const res = await upload({
    image: await randomImage(42, 64, 48, 'png'),
    type: 'image/jpeg',
    metadata: { tags: [' b ', 'a', 'b'], rating: 'violent' },
  });
  t.is(res.status, 201);
  const post = await res.json();
  t.true(post.image.endsWith('.png'));
  t.deepEqual(
    post.tags.map((x: { name: string }) => x.name),
    ['a', 'b'],
  );
  t.is(post.rating, 'violent');
  const media = await fetch(post.imageURL);
  t.is(media.status, 200);
  t.is(media.headers.get('content-type'), 'image/png');
});
