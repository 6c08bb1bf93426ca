import fs from 'node:fs';
import test from 'ava';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { silentProgress } from '../../src/util/progress.ts';
import { thumbnailName } from '../../src/kernel/media-names.ts';
import { rethumb } from '../../src/thumbnails/rethumb.ts';

let app: TestApp;
let user: TestUser;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
});
test.after.always(() => app?.close());

/** Three solid frames, red then green then blue: the thumbnail must be the red one. */
async function animatedGif(width: number, height: number): Promise<Buffer> {
  const frames = [
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
  ];
  const raw = Buffer.alloc(width * height * 3 * frames.length);
  frames.forEach((rgb, f) => {
    for (let i = 0; i < width * height; i++) raw.set(rgb, (f * width * height + i) * 3);
  });
  return sharp(raw, { raw: { width, height: height * frames.length, channels: 3, pageHeight: height } })
    .gif({ delay: [100, 100, 100] })
    .toBuffer();
}

interface Post {
  id: string;
  thumbnails: Record<string, string>;
}

async function upload(image: Buffer, type: string): Promise<Post> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image, type, force: '1' }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()) as Post;
}

/** Fetches one thumbnail through its URL and returns its metadata. */
async function fetchThumb(post: Post, size: '320' | '1024') {
  if (!post.thumbnails[size].endsWith(`/media/${post.id}.${size}.webp`))
    throw new Error(`unexpected URL ${post.thumbnails[size]}`);
  const res = await fetch(post.thumbnails[size]);
  if (res.status !== 200) throw new Error(`GET ${post.thumbnails[size]}: ${res.status}`);
  const buf = Buffer.from(await res.arrayBuffer());
  return { type: res.headers.get('content-type'), buf, meta: await sharp(buf).metadata() };
}

const cases: {
  label: string;
  make: () => Promise<Buffer>;
  type: string;
  t320: [number, number];
  t1024: [number, number];
  animated?: boolean;
}[] = [
  // [width, height]; the long side is the size, the short one scales (rounded), never upscaled.
  {
    label: 'a wide image',
    make: () => randomImage(7001, 2000, 500),
    type: 'image/png',
    t320: [320, 80],
    t1024: [1024, 256],
  },
  {
    label: 'a tall image',
    make: () => randomImage(7002, 300, 1500, 'jpeg'),
    type: 'image/jpeg',
    t320: [64, 320],
    t1024: [205, 1024],
  },
  {
    label: 'a small image (never upscaled)',
    make: () => randomImage(7003, 200, 120),
    type: 'image/png',
    t320: [200, 120],
    t1024: [200, 120],
  },
  {
    label: 'an animated GIF (its poster frame)',
    make: () => animatedGif(600, 400),
    type: 'image/gif',
    t320: [320, 213],
    t1024: [600, 400],
    animated: true,
  },
];

for (const c of cases) {
  test(`thumbnails of ${c.label}: WebP, right sizes, served from /media`, async (t) => {
    const post = await upload(await c.make(), c.type);
    t.deepEqual(Object.keys(post.thumbnails).sort(), ['1024', '320']);
    for (const [size, [w, h]] of [
      ['320', c.t320],
      ['1024', c.t1024],
    ] as const) {
      const thumb = await fetchThumb(post, size);
      t.is(thumb.type, 'image/webp', size);
      t.is(thumb.meta.format, 'webp', size);
      t.is(thumb.meta.width, w, `${c.label} ${size} width`);
      t.is(thumb.meta.height, h, `${c.label} ${size} height`);
      // A still image, even from an animation.
      t.is(thumb.meta.pages ?? 1, 1, size);
      t.true(fs.existsSync(app.services.images.pathOf(thumbnailName(post.id, Number(size) as 320 | 1024))));
    }
    if (c.animated) {
      const { data } = await sharp((await fetchThumb(post, '320')).buf)
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      // docs/decisions.md §21: the poster is the frame shown at min(1 s, 10 %) of the duration. The frames
      // are 0.1 s each, so 10 % of 0.3 s is inside the first, red one.
      t.true(data[0] > 200 && data[1] < 60 && data[2] < 60, `the poster is red, got ${[...data.subarray(0, 3)]}`);
    }
  });
}

test('posts in lists and /image/search carry thumbnail URLs', async (t) => {
  const post = await upload(await randomImage(7010), 'image/png');
  const got = await (await app.request(`/api/post/${post.id}`)).json();
  t.deepEqual(got.thumbnails, post.thumbnails);
  const search = await (
    await app.request('/image/search', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ conditions: [], orderBy: 'id', order: 'desc' }),
    })
  ).json();
  const hit = search.data.images.find(
    (i: { id: number }) => i.id === app.services.postRepository.getById(post.id)!.seq,
  );
  t.is(hit.thumbnailUrl, post.thumbnails['320']);
});

test('deleting a post removes its thumbnails; unknown sizes are 404', async (t) => {
  const post = await upload(await randomImage(7020), 'image/png');
  const files = [320, 1024].map((s) => app.services.images.pathOf(thumbnailName(post.id, s as 320 | 1024)));
  // Made after the response: asking for them makes them if the background runner has not yet.
  for (const size of ['320', '1024'] as const) await fetchThumb(post, size);
  t.true(files.every((f) => fs.existsSync(f)));
  t.is((await app.request(`/media/${post.id}.640.webp`)).status, 404);
  t.is((await app.request(`/media/${post.id}.320.png`)).status, 404);
  const del = await app.request(`/api/post/${post.id}`, { method: 'DELETE', headers: user.headers });
  t.is(del.status, 204);
  t.true(files.every((f) => !fs.existsSync(f)));
  t.is((await fetch(post.thumbnails['320'])).status, 404);
  t.is(app.services.db.prepare('SELECT count(*) FROM pending_files WHERE post_id = ?').pluck().get(post.id), 0);
});

test.serial('a failed post insert leaves no thumbnail behind', async (t) => {
  // The row insert fails after the files were moved in: every file of the post must go.
  const images = app.services.images;
  const realSettle = images.settle.bind(images);
  let adoptedId: string | undefined;
  images.settle = (image: string) => {
    // Only the call inside the transaction fails; discard's own settle afterwards works.
    images.settle = realSettle;
    adoptedId = image.slice(0, image.indexOf('.'));
    throw new Error('simulated failure inside the post transaction');
  };
  try {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(7030) }),
    });
    t.is(res.status, 500);
  } finally {
    images.settle = realSettle;
  }
  t.truthy(adoptedId);
  for (const size of [320, 1024] as const) t.false(fs.existsSync(images.pathOf(thumbnailName(adoptedId!, size))));
  t.deepEqual(
    fs.readdirSync(images.tmpDir).filter((f) => f.endsWith('.webp')),
    [],
  );
  t.is(app.services.db.prepare('SELECT count(*) FROM pending_files WHERE post_id = ?').pluck().get(adoptedId), 0);
});

test.serial('rethumb regenerates missing thumbnails and skips complete posts with missingOnly', async (t) => {
  const post = await upload(await randomImage(7040, 800, 600), 'image/png');
  const file = app.services.images.pathOf(thumbnailName(post.id, 1024));
  await fetchThumb(post, '320');
  await fetchThumb(post, '1024');
  fs.rmSync(file);
  const deps = {
    posts: app.services.postRepository,
    images: app.services.images,
    thumbnailer: app.services.thumbnailer,
  };
  const result = await rethumb(deps, { missingOnly: true, concurrency: 2, progress: () => silentProgress });
  t.is(result.regenerated, 1);
  t.is(result.skipped, result.posts - 1);
  t.deepEqual(result.failed, []);
  t.deepEqual(
    await sharp(file)
      .metadata()
      .then((m) => [m.width, m.height]),
    [800, 600],
  );
  const all = await rethumb(deps, { missingOnly: false, concurrency: 2, progress: () => silentProgress });
  t.is(all.regenerated, all.posts);
  t.deepEqual(
    fs.readdirSync(app.services.images.tmpDir).filter((f) => f.startsWith('thumb-')),
    [],
  );
});

test.serial(
  'a crash between moving the files in and the insert: start-up recovery removes the thumbnails too',
  async (t) => {
    const images = app.services.images;
    const id = '01900000-0000-7000-8000-00000000c0de';
    const temp = (name: string) => {
      const p = `${images.tmpDir}/${name}`;
      fs.writeFileSync(p, 'x');
      return p;
    };
    await images.adopt(temp('crash.png'), `${id}.png`, id, [
      { size: 320, tempPath: temp('crash.320.webp') },
      { size: 1024, tempPath: temp('crash.1024.webp') },
    ]);
    const files = images.filesOf(`${id}.png`);
    t.is(files.length, 3);
    t.true(files.every((f) => fs.existsSync(f)));
    // No row was ever inserted: what start-up recovery finds after the crash.
    const { removed } = await images.recover();
    t.true(removed >= 3);
    t.true(files.every((f) => !fs.existsSync(f)));
  },
);
