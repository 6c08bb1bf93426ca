import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { galleryDl as galleryDlInto } from '../helpers/gallery-dl.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { pool } from '../helpers/search-fixture.ts';
import { createUser } from '../helpers/users.ts';

// A real Danbooru client against imgpost (docs/decisions.md §20): Debian's gallery-dl (.ci/run installs
// it) mirrors a tag search of more than one page (it asks for 200 a page and walks on with page=bN)
// and a single post; every file must come back byte for byte, with its tags, rating and date.

const TAGGED = 250;
const RATINGS = ['none', 'moderate', 'violent'] as const;
const LETTER = { none: 'g', moderate: 'q', violent: 'e' } as const;

let app: TestApp;
/** uploaded bytes by their MD5, with what was sent */
/** the UUIDs of the first posts, for the pool */
const firstIds: string[] = [];
let userHeaders: Record<string, string>;
const uploaded = new Map<string, { bytes: Buffer; tags: string[]; rating: (typeof RATINGS)[number] }>();

test.before(async () => {
  app = await startTestApp({
    LOG_LEVEL: 'warn',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
  });
  const user = await createUser(app);
  userHeaders = user.headers;
  await pool(
    4,
    Array.from({ length: TAGGED + 5 }, (_, i) => async () => {
      // Small images keep the suite fast; PNG and JPEG both.
      const bytes = await randomImage(90_000 + i, 24, 16, i % 2 ? 'jpeg' : 'png');
      const tags = i < TAGGED ? ['mirror_me', `n${i}`] : ['other'];
      const rating = RATINGS[i % 3];
      const res = await app.request('/api/post/', {
        method: 'POST',
        headers: user.headers,
        body: uploadForm({
          image: bytes,
          type: i % 2 ? 'image/jpeg' : 'image/png',
          metadata: { text: `post ${i}`, tags, rating },
          force: '1',
        }),
      });
      if (res.status !== 201) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
      if (i < 5) firstIds[i] = ((await res.clone().json()) as { id: string }).id;
      uploaded.set(crypto.createHash('md5').update(bytes).digest('hex'), { bytes, tags, rating });
    }),
  );
});
test.after.always(async () => app?.close());

const galleryDl = (url: string) => galleryDlInto(app.url, url, 'gallery-dl');

/** Each downloaded file: identical to an upload, its metadata carrying the upload's tags, rating and date. */
function checkDownloads(t: import('ava').ExecutionContext, dir: string): string[] {
  const files = fs.readdirSync(dir).filter((f) => !f.endsWith('.json'));
  for (const f of files) {
    const bytes = fs.readFileSync(path.join(dir, f));
    const md5 = crypto.createHash('md5').update(bytes).digest('hex');
    const sent = uploaded.get(md5);
    t.truthy(sent, `${f} is byte-identical to an upload`);
    if (!sent) continue;
    t.true(sent.bytes.equals(bytes));
    const meta = JSON.parse(fs.readFileSync(path.join(dir, `${f}.json`), 'utf8'));
    t.is(meta.md5, md5);
    t.deepEqual(String(meta.tag_string).split(' ').sort(), [...sent.tags].sort());
    t.is(meta.rating, LETTER[sent.rating]);
    t.regex(meta.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
  }
  return files;
}

test('gallery-dl mirrors a tag search of 250 posts (two pages) byte for byte', async (t) => {
  const dir = await galleryDl(`${app.url}/posts?tags=mirror_me`);
  const files = checkDownloads(t, dir);
  t.is(files.length, TAGGED);
  t.is(new Set(files).size, TAGGED);
});

test('gallery-dl fetches a single post', async (t) => {
  const [post] = (await (await app.request('/posts.json?tags=other&limit=1')).json()) as { id: number }[];
  const dir = await galleryDl(`${app.url}/posts/${post.id}`);
  const files = checkDownloads(t, dir);
  t.deepEqual(files, [`${post.id}.${files[0].split('.')[1]}`]);
});

test('gallery-dl mirrors a pool (docs/decisions.md §19, §20)', async (t) => {
  const res = await app.request('/api/pool', {
    method: 'POST',
    headers: { ...userHeaders, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'mirror pool', postIds: firstIds }),
  });
  t.is(res.status, 201);
  const pool = (await res.json()) as { id: number };
  const dir = await galleryDl(`${app.url}/pools/${pool.id}`);
  const files = checkDownloads(t, dir);
  const { post_ids: postIds } = (await (await app.request(`/pools/${pool.id}.json`)).json()) as { post_ids: number[] };
  t.deepEqual(files.map((f) => Number(f.split('.')[0])).sort(), [...postIds].sort());
  t.is(files.length, 5);
});
