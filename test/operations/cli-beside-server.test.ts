/**
 * Admin jobs beside a live server (docs/decisions.md §13): `imgpost verify`, `reindex`, `import` and
 * `rethumb` run as real CLI processes on the DATA_DIR of a server taking an upload storm of large
 * images. Every upload is 201 (no job clears the server's temporary uploads or journaled files any
 * more), every acknowledged image and thumbnail is served afterwards, and everything is searchable.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { encodedUploadForm, randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { imgpost, type CliResult } from '../cli/run-cli.ts';

// One client, its next image made while the current one uploads, keeps an upload in flight at every
// moment of every job (a second client only doubled the image work).
const CLIENTS = 1;
const IMPORTED = 4;

const WIDTH = 1600;
const HEIGHT = 1067;
let noise: Promise<Buffer> | undefined;

/**
 * A distinct 1600x1067 JPEG of about 0.5-1.5 MB: randomImage's block pattern (its hash) under fine
 * noise (its size). Made by sharp off the event loop, so the in-process server and the clients'
 * sockets are never held up by the test's own image generation.
 */
async function largeImage(seed: number): Promise<Buffer> {
  // Kept as raw pixels: as a PNG, each image decoded it again (a quarter of the image's CPU).
  noise ??= sharp({
    create: {
      width: WIDTH,
      height: HEIGHT,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .raw()
    .toBuffer();
  return sharp(await randomImage(seed))
    .resize(WIDTH, HEIGHT, { kernel: 'nearest' })
    .composite([{ input: await noise, raw: { width: WIDTH, height: HEIGHT, channels: 3 }, blend: 'overlay' }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * An upload whose body stops halfway until `finish()`: resolved once the server has written the part
 * it has to a temporary file under DATA_DIR/tmp, so the file is on disk while the caller does something else.
 */
async function heldUpload(
  app: TestApp,
  headers: Record<string, string>,
  image: Buffer,
): Promise<{ finish(): Promise<{ status: number; body: { id?: string; imageURL?: string } }> }> {
  const { type, body } = await encodedUploadForm({ image, type: 'image/jpeg', metadata: { tags: ['held'] } });
  const tmp = path.join(app.dataDir, 'tmp');
  const before = new Set(fs.readdirSync(tmp));
  let end = () => {};
  const answer = new Promise<{ status: number; body: { id?: string; imageURL?: string } }>((resolve, reject) => {
    const req = http.request(new URL('/api/post/', app.url), {
      method: 'POST',
      headers: { ...headers, 'Content-Type': type, 'Content-Length': body.length },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.write(body.subarray(0, body.length >> 1));
    end = () => req.end(body.subarray(body.length >> 1));
  });
  // Only reported if the test fails first (finish() hands the answer on).
  answer.catch(() => {});
  // The request's own directory (multipart.ts), with the image part begun in it: the storm is paused meanwhile.
  const begun = (dir: string) => {
    try {
      return fs.readdirSync(dir).some((f) => fs.statSync(path.join(dir, f)).size > 0);
    } catch {
      return false; // not a directory (a thumbnail being written), or gone already
    }
  };
  const written = () =>
    fs.readdirSync(tmp).some((d) => /^upload-[^.]+$/.test(d) && !before.has(d) && begun(path.join(tmp, d)));
  while (!written()) await new Promise((r) => setTimeout(r, 10));
  return {
    finish: () => {
      end();
      return answer;
    },
  };
}

interface Acked {
  id: string;
  image: Buffer;
  imageURL: string;
  thumbnails: Record<string, string>;
}

test('verify, reindex, import and rethumb as CLI processes during an upload storm: every upload 201, all served and searchable', async (t) => {
  t.timeout(600_000);
  const app = await startTestApp({
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
  });
  const importDir = tempDir('imgpost-import-src');
  t.teardown(async () => {
    await app.close();
    fs.rmSync(importDir, { recursive: true, force: true });
  });
  const user = await createUser(app, 0x2);
  for (let i = 0; i < IMPORTED; i++)
    fs.writeFileSync(path.join(importDir, `imported-${i}.jpg`), await largeImage(50_000 + i));

  const acked: Acked[] = [];
  const refused: string[] = [];
  let seed = 40_000;
  let storming = true;
  let slowest = 0;
  // Set while a held upload starts, so its temporary directory is the only new one (see heldUpload).
  let pause: Promise<void> | undefined;
  let inFlight = false;
  const storm = Promise.all(
    [...Array(CLIENTS)].map(async () => {
      let next = largeImage(seed++);
      while (storming) {
        const image = await next;
        next = largeImage(seed++);
        if (pause) await pause;
        inFlight = true;
        let res;
        const started = Date.now();
        try {
          res = await app.request('/api/post/', {
            method: 'POST',
            headers: user.headers,
            body: uploadForm({ image, type: 'image/jpeg', metadata: { tags: ['storm'] } }),
          });
        } catch (err) {
          refused.push(
            `no response after ${Date.now() - started} ms: ${String((err as { cause?: unknown }).cause ?? err)}`,
          );
          continue;
        } finally {
          inFlight = false;
        }
        const body = await res.json();
        slowest = Math.max(slowest, Date.now() - started);
        if (res.status === 201)
          acked.push({ id: body.id, image, imageURL: body.imageURL, thumbnails: body.thumbnails });
        else refused.push(`${res.status} ${JSON.stringify(body)}`);
      }
      await next;
    }),
  );

  // Let the storm get going, then run each job to its end while it continues.
  const waitForUploads = async (n: number) => {
    while (acked.length + refused.length < n) await new Promise((r) => setTimeout(r, 50));
  };
  await waitForUploads(CLIENTS);
  const jobs: Record<string, CliResult> = {};
  const held: { job: string; image: Buffer; status: number; body: { id?: string; imageURL?: string } }[] = [];
  for (const args of [['verify'], ['reindex'], ['import', importDir], ['rethumb']]) {
    const image = await largeImage(60_000 + held.length);
    let resume = () => {};
    pause = new Promise((r) => (resume = r));
    while (inFlight) await new Promise((r) => setTimeout(r, 10));
    const upload = await heldUpload(app, user.headers, image);
    pause = undefined;
    resume();
    jobs[args[0]] = await imgpost(app, ...args);
    held.push({ job: args[0], image, ...(await upload.finish()) });
    await waitForUploads(acked.length + refused.length + CLIENTS);
  }
  storming = false;
  await storm;

  // The uploads held open across each job: answered 201, stored as sent.
  for (const h of held) {
    t.is(h.status, 201, `the upload held open across ${h.job}: ${JSON.stringify(h.body)}`);
    if (h.status !== 201) continue;
    const stored = await fetch(h.body.imageURL!);
    t.true(Buffer.from(await stored.arrayBuffer()).equals(h.image), `the upload held open across ${h.job}`);
  }

  t.deepEqual(refused, [], 'every upload of the storm is 201');
  t.log(`${acked.length} uploads during the jobs; slowest ${slowest} ms`);
  t.true(acked.length >= 5 * CLIENTS);
  // verify may meet uploads between their commit and their index write: drift it reports, not a failure.
  t.true([0, 1].includes(jobs.verify.code), jobs.verify.stderr);
  t.is(jobs.reindex.code, 0, jobs.reindex.stderr);
  t.is(jobs.import.code, 0, jobs.import.stderr);
  t.regex(jobs.import.stderr, new RegExp(`bare files ${IMPORTED} `));
  t.is(jobs.rethumb.code, 0, jobs.rethumb.stderr);

  // Every acknowledged image, byte for byte, and both its thumbnails.
  for (const post of acked) {
    const image = await fetch(post.imageURL);
    t.is(image.status, 200, post.imageURL);
    t.true(
      Buffer.from(await image.arrayBuffer()).equals(post.image),
      `${post.id}: the stored image is the uploaded one`,
    );
    for (const size of ['320', '1024']) {
      const thumb = await fetch(post.thumbnails[size]);
      t.is(thumb.status, 200, post.thumbnails[size]);
      t.is(thumb.headers.get('content-type'), 'image/webp');
      const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
      t.is(meta.width, Number(size));
    }
  }

  // Everything is searchable: the storm by its tag, the imports with it in the whole set.
  const searchAll = async (body: object): Promise<{ count: number; ids: Set<string> }> => {
    const ids = new Set<string>();
    let count: number;
    for (let offset = 0; ; offset += 100) {
      const res = await app.request(`/api/post/search?offset=${offset}&limit=100`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      t.is(res.status, 200);
      const page = (await res.json()) as { count: number; data: { id: string }[] };
      count = page.count;
      for (const p of page.data) ids.add(p.id);
      if (page.data.length < 100) return { count, ids };
    }
  };
  const storm2 = await searchAll({ filter: [{ type: 'tag', op: 'include', value: 'storm' }] });
  t.is(storm2.count, acked.length);
  t.true(acked.every((p) => storm2.ids.has(p.id)));
  const all = await searchAll({});
  t.is(all.count, acked.length + IMPORTED + held.length);
  t.is(all.count, app.services.postRepository.count());

  // And the index agrees with SQLite once the storm is over.
  const after = await imgpost(app, 'verify');
  t.is(after.code, 0, after.stderr);
});
