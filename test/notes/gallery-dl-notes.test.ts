/**
 * docs/decisions.md §23: Debian's gallery-dl with `-o metadata=true` (Danbooru's `only=`) against the running
 * server writes each post's notes, children, parent and uploader into its metadata files, for a tag search and
 * for a single post.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { galleryDl as galleryDlInto } from '../helpers/gallery-dl.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let user: TestUser;
let parent: { id: string; number: number };
let child: { id: string; number: number };

async function upload(seed: number, metadata: Record<string, unknown>) {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(seed), metadata }),
  });
  const { id } = (await res.json()) as { id: string };
  return { id, number: app.services.postRepository.getById(id)!.seq };
}

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  user = await createUser(app, 0x2 | 0x4);
  parent = await upload(5301, { tags: ['gdl_noted'] });
  child = await upload(5302, { tags: ['gdl_noted'], parentId: parent.id });
  const res = await app.request(`/api/post/${child.id}/note`, {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ x: 4, y: 5, width: 20, height: 10, body: '<img src=x onerror=alert(1)> hello' }),
  });
  if (res.status !== 201) throw new Error(`note: ${res.status}`);
});
test.after.always(() => app?.close());

const galleryDl = (url: string) => galleryDlInto(app.url, url, 'gallery-dl-notes', ['-o', 'metadata=true']);

const meta = (dir: string, n: number) =>
  JSON.parse(fs.readFileSync(path.join(dir, `${n}.png.json`), 'utf8')) as Record<string, any>;

function check(t: import('ava').ExecutionContext, m: Record<string, any>, p: Record<string, any>) {
  t.like(m.uploader, { id: user.id, name: user.name });
  t.is(m.artist_commentary, null);
  t.deepEqual(p.notes, m.notes);
}

test('a tag search: notes, children, parent and uploader in each metadata file', async (t) => {
  const dir = await galleryDl(`${app.url}/posts?tags=gdl_noted`);
  const c = meta(dir, child.number);
  const p = meta(dir, parent.number);
  t.is(c.notes.length, 1);
  t.like(c.notes[0], {
    post_id: child.number,
    x: 4,
    y: 5,
    width: 20,
    height: 10,
    body: '<img src=x onerror=alert(1)> hello',
    is_active: true,
    version: 1,
  });
  t.is(c.parent.id, parent.number);
  t.deepEqual(c.children, []);
  t.deepEqual(p.notes, []);
  t.is(p.parent, null);
  t.deepEqual(
    p.children.map((x: { id: number }) => x.id),
    [child.number],
  );
  t.regex(c.last_noted_at, /\+00:00$/);
  t.is(p.last_noted_at, null);
  check(t, c, c);
  check(t, p, p);
});

test('a single post: the same fields', async (t) => {
  const dir = await galleryDl(`${app.url}/posts/${child.number}`);
  const c = meta(dir, child.number);
  t.is(c.notes[0].body, '<img src=x onerror=alert(1)> hello');
  t.is(c.parent.id, parent.number);
  t.like(c.uploader, { name: user.name });
});
