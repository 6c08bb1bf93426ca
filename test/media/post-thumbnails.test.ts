/**
 * GET /api/post/{id}/thumbnails: a post's thumbnail URLs, by UUID or number, each serving a WebP of the
 * size it names (made on demand when the background has not reached it yet); an unknown post is 404.
 */
import test from 'ava';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

test("a post's thumbnails: every size with a URL that serves a WebP no larger than it", async (t) => {
  const user = await createUser(app);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(7, 1600, 1200) }),
  });
  t.is(res.status, 201);
  const post = (await res.json()) as { id: string };
  const number = app.services.postService.find(post.id).seq;

  for (const ref of [post.id, String(number)]) {
    const answer = await app.request(`/api/post/${ref}/thumbnails`);
    t.is(answer.status, 200);
    const body = (await answer.json()) as { postId: string; thumbnails: { size: number; url: string }[] };
    t.is(body.postId, post.id);
    t.deepEqual(
      body.thumbnails.map((th) => th.size),
      [320, 1024],
    );
    for (const { size, url } of body.thumbnails) {
      const file = await fetch(url);
      t.is(file.status, 200);
      t.is(file.headers.get('content-type'), 'image/webp');
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      t.is(Math.max(meta.width!, meta.height!), size);
    }
  }
});

test('an unknown or malformed post id is 404 with the error body', async (t) => {
  for (const ref of ['0190c3f0-0000-7000-8000-000000000000', '999999', 'not-a-post']) {
    const res = await app.request(`/api/post/${ref}/thumbnails`);
    t.is(res.status, 404);
    t.like(await res.json(), { error: 'post not found' });
  }
});
