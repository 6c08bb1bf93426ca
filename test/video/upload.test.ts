import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { startTestApp, thumbnailsSettled, type TestApp } from '../helpers/app.ts';
import {
  CLIPS,
  clipsDir,
  ffmpegClip,
  introClip,
  lavfi,
  picture,
  removeClips,
  shotsClip,
  tone,
} from '../helpers/clips.ts';
import { uploadForm } from '../helpers/fixtures.ts';
import { galleryDl } from '../helpers/gallery-dl.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

/** docs/decisions.md §21 through POST /api/post/: moving pictures stored as uploaded, hostile ones refused. */
let app: TestApp;
let user: TestUser;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4);
});
test.after.always(async () => {
  await app?.close();
  removeClips();
});

const upload = (image: Buffer, type: string, force?: string) =>
  app.request('/api/post/', {
    method: 'POST',
    headers: { 'X-Access-Key': user.accessKey },
    body: uploadForm({ image, type, ...(force ? { force } : {}) }),
  });

/** What a refused upload must leave as it was: posts, the media store's objects, tmp/, the index. */
async function fingerprint() {
  await thumbnailsSettled(app);
  const files: string[] = [];
  for await (const o of app.services.images.store.list('')) files.push(o.key);
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else files.push(path.join(dir, e.name));
    }
  };
  walk(path.join(app.dataDir, 'tmp'));
  const { es, postsIndex, db } = app.services;
  await es.indices.refresh({ index: postsIndex.alias });
  return {
    files: files.sort(),
    posts: db.prepare('SELECT count(*) FROM posts').pluck().get(),
    frames: db.prepare('SELECT count(*) FROM post_frames').pluck().get(),
    indexed: (await es.count({ index: postsIndex.alias })).count,
  };
}

test.serial('each moving picture is stored byte for byte, with its media facts and poster thumbnails', async (t) => {
  for (const [name, { make, facts }] of Object.entries(CLIPS)) {
    const bytes = fs.readFileSync(await make());
    // The declared type decides nothing: every clip is sent as application/octet-stream.
    const res = await upload(bytes, 'application/octet-stream');
    t.is(res.status, 201, `${name}: ${await res.clone().text()}`);
    const post = await res.json();
    t.is(post.image, `${post.id}.${facts.ext}`, name);
    t.like(post.media, { kind: facts.kind, mime: facts.mime, width: 160, height: 120, bytes: bytes.length }, name);
    t.true(Math.abs(post.media.duration - facts.duration) <= 0.1, `${name}: ${post.media.duration}`);
    t.is(post.media.frames, facts.frames, name);
    t.is(post.media.hasAudio, facts.hasAudio, name);
    const stored = await app.request(`/media/${post.image}`);
    t.is(stored.status, 200);
    t.is(stored.headers.get('content-type'), facts.mime, name);
    t.true(Buffer.from(await stored.arrayBuffer()).equals(bytes), `${name} is stored byte for byte`);
    // The thumbnail is the poster frame: its hash is the post's imageHash, so `similar` finds the post.
    const thumb = Buffer.from(await (await app.request(`/media/${post.id}.320.webp`)).arrayBuffer());
    t.like(await sharp(thumb).metadata(), { format: 'webp', width: 160, height: 120 }, name);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(await sharp(thumb).png().toBuffer())], { type: 'image/png' }));
    const similar = await (await app.request('/api/post/similar?maxDiff=3', { method: 'POST', body: form })).json();
    t.true(
      similar.similar.some((s: { id: string }) => s.id === post.id),
      `${name}: the thumbnail shows the poster frame ${JSON.stringify(similar)} ${post.imageHash}`,
    );
    const got = await (await app.request(`/api/post/${post.id}`)).json();
    t.deepEqual(got.media, post.media);
  }
  // A GIF of one frame is a still image, as before.
  const still = fs.readFileSync(await ffmpegClip('one.gif', [...lavfi(picture(0.1, 10)), '-frames:v', '1']));
  const one = await (await upload(still, 'image/gif')).json();
  t.like(one.media, { kind: 'image', mime: 'image/gif', duration: null, frames: null, hasAudio: false });
});

test.serial('a zip end signature by chance inside a photograph is no archive; a real zip after one is', async (t) => {
  // Zip's end-record signature inside the picture's own data (an EXIF text, written by the encoder), followed by
  // bytes that name no central directory: what the signature alone looks like when it turns up in compressed data.
  const picture = (seed: number) =>
    sharp({ create: { width: 96, height: 64, channels: 3, background: { r: seed, g: 90, b: 200 - seed } } })
      .composite([
        { input: { create: { width: 32, height: 32, channels: 3, background: '#fff' } }, left: seed % 60, top: 8 },
      ])
      .jpeg();
  const byChance = await picture(40)
    .withExif({ IFD0: { ImageDescription: 'PK\x05\x06zzzzzzzzzzzzzzzzzzzzzz' } })
    .toBuffer();
  t.true(byChance.includes(Buffer.from('PK\x05\x06')), 'the signature is in the file');
  const accepted = await upload(byChance, 'image/jpeg');
  t.is(accepted.status, 201, await accepted.text());

  // The same kind of picture with a zip made by Python's zipfile after it, alone and with bytes behind the zip.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-polyglot-'));
  try {
    fs.writeFileSync(path.join(dir, 'note.txt'), 'hidden');
    execFileSync('python3', ['-m', 'zipfile', '-c', path.join(dir, 'a.zip'), path.join(dir, 'note.txt')]);
    const zip = fs.readFileSync(path.join(dir, 'a.zip'));
    const before = await fingerprint();
    for (const [what, bytes] of [
      ['a zip after the picture', Buffer.concat([await picture(70).toBuffer(), zip])],
      [
        'a zip and more bytes after the picture',
        Buffer.concat([await picture(100).toBuffer(), zip, Buffer.alloc(40, 7)]),
      ],
    ] as const) {
      const res = await upload(bytes, 'image/jpeg');
      const body = await res.json();
      t.is(res.status, 400, `${what}: ${JSON.stringify(body)}`);
      t.like(body[0], { code: 'unsupported_media', path: ['image'] }, what);
      t.regex(body[0].message, /zip/, what);
    }
    t.deepEqual(await fingerprint(), before, 'nothing stored');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.serial('hostile and unsupported files are refused with a clear 400 and nothing stored', async (t) => {
  const good = fs.readFileSync(await CLIPS['vp8-opus.webm']!.make());
  const before = await fingerprint();
  const refused = async (what: string, image: Buffer, type: string, code: string, message: RegExp) => {
    const res = await upload(image, type);
    const body = await res.json();
    t.is(res.status, 400, `${what}: ${JSON.stringify(body)}`);
    t.like(body[0], { code, path: ['image'] }, what);
    t.regex(body[0].message, message, what);
  };
  const clip = (name: string, args: string[]) => ffmpegClip(name, args).then((f) => fs.readFileSync(f));
  await refused(
    'truncated',
    good.subarray(0, Math.floor(good.length / 3)),
    'video/webm',
    'unsupported_media',
    /truncated|corrupt|cannot be decoded/,
  );
  const corrupt = Buffer.from(good);
  corrupt.fill(0x55, 200, corrupt.length - 10);
  await refused('corrupt', corrupt, 'video/webm', 'unsupported_media', /truncated|corrupt|cannot be/);
  await refused(
    'HTML declared video/mp4',
    Buffer.from('<!doctype html><html><script>alert(1)</script></html>'),
    'video/mp4',
    'unsupported_media',
    /HTML/,
  );
  await refused(
    'a WebM that is also HTML',
    Buffer.concat([good.subarray(0, 64), Buffer.from('<script>alert(1)</script>'), good.subarray(64)]),
    'video/webm',
    'unsupported_media',
    /HTML/,
  );
  await refused(
    'a zip declared video/mp4',
    Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(26), Buffer.from('PK\x05\x06'), Buffer.alloc(18)]),
    'video/mp4',
    'unsupported_media',
    /zip/,
  );
  await refused(
    'a WebM with a zip after it',
    Buffer.concat([good, Buffer.from('PK\x05\x06'), Buffer.alloc(18)]),
    'video/webm',
    'unsupported_media',
    /zip/,
  );
  await refused(
    'an unsupported codec',
    await clip('mpeg4.mp4', [...lavfi(picture(1)), '-c:v', 'mpeg4']),
    'video/mp4',
    'unsupported_media',
    /video codec mpeg4/,
  );
  await refused(
    'an unsupported audio codec',
    await clip('flac.mkv', [...lavfi(picture(1), tone(1)), '-c:v', 'libvpx', '-c:a', 'flac', '-f', 'matroska']),
    'video/webm',
    'unsupported_media',
    /audio codec flac/,
  );
  await refused(
    'an unsupported container',
    await clip('clip.avi', [...lavfi(picture(1)), '-c:v', 'mjpeg']),
    'video/x-msvideo',
    'unsupported_media',
    /signature/,
  );
  await refused(
    'two video streams',
    await clip('two.webm', [
      ...lavfi(picture(1), picture(1, 25, 'testsrc')),
      '-map',
      '0',
      '-map',
      '1',
      '-c:v',
      'libvpx',
    ]),
    'video/webm',
    'unsupported_media',
    /2 video streams/,
  );
  await refused(
    'absurd dimensions',
    await clip('wide.webm', [...lavfi('color=c=gray:s=8000x16:r=1:d=1'), '-c:v', 'libvpx']),
    'video/webm',
    'unsupported_media',
    /MAX_VIDEO_SIDE/,
  );
  const long = await clip('long.webm', [...lavfi('color=c=gray:s=16x16:r=1/60:d=36000'), '-c:v', 'libvpx']);
  t.true(long.length < 64 * 1024, 'ten hours in a few kilobytes');
  await refused('a 10-hour clip', long, 'video/webm', 'unsupported_media', /MAX_VIDEO_SECONDS/);
  // An animation keeps the still images' 4 MiB; a video has its own limit.
  const bigGif = await clip('big.gif', lavfi('nullsrc=s=400x300:r=10:d=8,geq=random(1)*255:128:128'));
  t.true(bigGif.length >= 4 * 1024 * 1024, String(bigGif.length));
  const big = await upload(bigGif, 'application/octet-stream');
  t.is(big.status, 400);
  t.regex((await big.json())[0].message, /smaller than 4194304 bytes/);
  t.deepEqual(await fingerprint(), before);

  // A run held to too little memory is killed: media_too_complex, nothing stored.
  const tight = await startTestApp({ MEDIA_RUN_MEMORY_MB: '64' });
  try {
    const other = await createUser(tight, 0x2);
    const res = await tight.request('/api/post/', {
      method: 'POST',
      headers: { 'X-Access-Key': other.accessKey },
      body: uploadForm({ image: good, type: 'video/webm' }),
    });
    const body = await res.json();
    t.is(res.status, 400, JSON.stringify(body));
    t.like(body[0], { code: 'media_too_complex', path: ['image'] });
    t.is(tight.services.db.prepare('SELECT count(*) FROM posts').pluck().get(), 0);
    t.deepEqual(fs.readdirSync(path.join(tight.dataDir, 'tmp')), []);
  } finally {
    await tight.close();
  }
  t.truthy(clipsDir());
});

test.serial(
  'a re-encoded, rescaled copy is a 409 unless forced; clips sharing black and a title card are not copies; a frame and a GIF cut from a video find it',
  async (t) => {
    const original = await shotsClip();
    const first = await (await upload(fs.readFileSync(original), 'video/webm')).json();
    t.is(first.media.kind, 'video');
    const copy = fs.readFileSync(
      await ffmpegClip('shots-copy.mp4', [
        ...['-i', original, '-vf', 'scale=120:90', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30'],
      ]),
    );
    const refused = await upload(copy, 'video/mp4');
    t.is(refused.status, 409);
    // §4's body: the near-duplicates, each with its image, URL, id and hash
    t.deepEqual(await refused.json(), [
      { image: first.image, imageURL: first.imageURL, id: first.id, imageHash: first.imageHash },
    ]);
    const forced = await upload(copy, 'video/mp4', '1');
    t.is(forced.status, 201);
    t.like((await forced.json()).media, { kind: 'video', mime: 'video/mp4', width: 120, height: 90 });

    const a = await upload(fs.readFileSync(await introClip('intro-a.webm', 'testsrc2=s=160x120:r=25')), 'video/webm');
    const b = await upload(fs.readFileSync(await introClip('intro-b.webm', 'mandelbrot=s=160x120:r=25')), 'video/webm');
    t.is(a.status, 201, 'the first clip with the intro');
    t.is(b.status, 201, 'the second clip with the same intro is no copy');
    // Their posters are the same title card: §4's hash alone would have called them copies.
    const [ha, hb] = [(await a.json()).imageHash as string, (await b.json()).imageHash as string];
    t.true([...ha].filter((c, i) => c !== hb[i]).length < 4, `${ha} ${hb}`);

    // A still frame and a 1-s GIF cut from the middle of the video find it among the robust matches.
    const still = await ffmpegClip('shots-middle.png', ['-ss', '2', '-i', original, '-frames:v', '1']);
    const gif = await ffmpegClip('shots-middle.gif', ['-ss', '1.5', '-t', '1', '-i', original, '-r', '10']);
    for (const [what, file, type] of [
      ['a still frame', still, 'image/png'],
      ['a GIF cut from it', gif, 'image/gif'],
    ] as const) {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(file))], { type }));
      const res = await app.request('/api/post/similar?robust=1', { method: 'POST', body: form });
      t.is(res.status, 200, what);
      const body = await res.json();
      t.false(
        body.similar.some((s: { id: string }) => s.id === first.id),
        `${what}: not the poster`,
      );
      const found = body.robust.find((r: { id: string }) => r.id === first.id);
      t.like(found, { kind: 'frames', image: first.image }, `${what}: ${JSON.stringify(body)}`);
      t.true(found.score > 0.8, String(found.score));
    }
    // And the video itself, asked about by its post, finds its forced copy by its frames or hash.
    const own = await (await app.request(`/api/post/${first.id}/similar?robust=1`)).json();
    const copyId = (await app.services.postRepository.list(0, 100)).find(
      (p) => p.mime === 'video/mp4' && p.width === 120,
    )!.id;
    t.true([...own.similar, ...own.robust].some((m: { id: string }) => m.id === copyId));
  },
);

test.serial('search conditions, the Danbooru spelling and API, and gallery-dl carry moving pictures', async (t) => {
  type Listed = {
    id: string;
    image: string;
    media: { kind: string; duration: number | null; hasAudio: boolean; width: number; height: number };
  };
  const { data: posts } = (await (await app.request('/api/post/?limit=100')).json()) as { data: Listed[] };
  const seqOf = new Map(app.services.postRepository.list(0, 100).map((p) => [p.id, p.seq]));
  const seqs = (keep: (p: Listed) => boolean) =>
    posts
      .filter(keep)
      .map((p) => seqOf.get(p.id)!)
      .sort((a, b) => a - b);
  const search = async (conditions: object[]) => {
    const res = await app.request('/image/search?limit=24', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ conditions }),
    });
    t.is(res.status, 200, JSON.stringify(conditions));
    return ((await res.json()).data.images as { id: number }[]).map((i) => i.id).sort((a, b) => a - b);
  };
  const ext = (p: Listed) => p.image.split('.')[1];
  const cases: [object[], (p: Listed) => boolean][] = [
    [[{ type: 'mediaKind', value: 'video' }], (p) => p.media.kind === 'video'],
    [[{ type: 'mediaKind', value: 'image,animation' }], (p) => p.media.kind !== 'video'],
    [[{ type: 'durationGte', value: '3.5' }], (p) => (p.media.duration ?? -1) >= 3.5],
    [[{ type: 'durationLte', value: '2.02' }], (p) => p.media.duration !== null && p.media.duration <= 2.02],
    [[{ type: 'hasAudio', value: 'true' }], (p) => p.media.hasAudio],
    [
      [
        { type: 'hasAudio', value: 'false' },
        { type: 'mediaKind', value: 'video' },
      ],
      (p) => p.media.kind === 'video' && !p.media.hasAudio,
    ],
    [[{ type: 'query', value: 'filetype:mp4,gif' }], (p) => ['mp4', 'gif'].includes(ext(p))],
    [[{ type: 'query', value: 'duration:>3.5' }], (p) => (p.media.duration ?? -1) > 3.5],
    [[{ type: 'query', value: 'animated -video' }], (p) => p.media.kind === 'animation'],
    [[{ type: 'query', value: 'sound' }], (p) => p.media.hasAudio],
  ];
  for (const [conditions, keep] of cases) {
    const want = seqs(keep);
    t.true(want.length > 0, JSON.stringify(conditions));
    t.deepEqual(await search(conditions), want, JSON.stringify(conditions));
  }
  const bad = await app.request('/image/search', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ conditions: [{ type: 'query', value: 'filetype:avi' }] }),
  });
  t.is(bad.status, 400);

  // The Danbooru API, for every moving picture: file_ext, media_asset and Danbooru's own tags, computed.
  const moving = posts.filter((p) => p.media.kind !== 'image');
  t.true(moving.length >= 6);
  for (const post of moving) {
    const seq = seqOf.get(post.id)!;
    const booru = await (await app.request(`/posts/${seq}.json`)).json();
    t.is(booru.file_ext, ext(post), post.image);
    t.like(
      booru.media_asset,
      { id: seq, file_ext: ext(post), image_width: post.media.width, image_height: post.media.height },
      post.image,
    );
    t.true(Math.abs(booru.media_asset.duration - (post.media.duration ?? 0)) < 1e-6, post.image);
    t.is(booru.media_asset.file_size, booru.file_size, post.image);
    const computed = [
      'animated',
      ...(post.media.hasAudio ? ['sound'] : []),
      ...(post.media.kind === 'video' ? ['video'] : []),
    ];
    t.deepEqual(booru.tag_string_meta.split(' '), computed, post.image);
  }
  const listed = (await (await app.request('/posts.json?tags=video+sound&limit=100')).json()) as { id: number }[];
  t.deepEqual(
    listed.map((p) => p.id).sort((a, b) => a - b),
    seqs((p) => p.media.kind === 'video' && p.media.hasAudio),
  );

  // gallery-dl downloads every moving picture with its metadata, as it does an image.
  const dir = await galleryDl(app.url, `${app.url}/posts?tags=animated`, 'imgpost-gdl-video');
  try {
    for (const post of moving) {
      const seq = seqOf.get(post.id)!;
      const stored = Buffer.from(await (await app.request(`/media/${post.image}`)).arrayBuffer());
      t.true(fs.readFileSync(path.join(dir, `${seq}.${ext(post)}`)).equals(stored), post.image);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, `${seq}.${ext(post)}.json`), 'utf8'));
      t.like(meta, { id: seq, file_ext: ext(post), extension: ext(post) }, post.image);
      t.like(meta.media_asset, { file_ext: ext(post), image_width: post.media.width }, post.image);
    }
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});
