import fs from 'node:fs';
import test from 'ava';
import { send } from '../reliability/raw-http.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let user: TestUser;
const created: { id: string; image: string; createdAt: string }[] = [];

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
  for (let i = 0; i < 5; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({
        image: await randomImage(1000 + i),
        metadata: { text: `post ${i}`, tags: ['shared', `only${i}`], rating: 'moderate' },
      }),
    });
    if (res.status !== 201) throw new Error(`setup upload failed: ${res.status} ${await res.text()}`);
    created.push(await res.json());
  }
});
test.after.always(() => app?.close());

const json = (body: unknown) => ({ 'Content-Type': 'application/json', ...user.headers, body: JSON.stringify(body) });
const put = (id: string, body: unknown, method = 'PUT') => {
  const { body: b, ...headers } = json(body);
  return app.request(`/api/post/${id}`, { method, headers, body: b });
};
/** The post as the posts index holds it. */
const indexed = async (id: string) =>
  (
    await app.services.es.get<{ text: string; tags: string[]; rating: string }>(
      { index: app.services.postsIndex.alias, id },
      { ignore: [404] },
    )
  )._source;

test.serial('list: count, newest first, paging, limits', async (t) => {
  const all = await (await app.request('/api/post/')).json();
  t.is(all.count, 5);
  t.deepEqual(
    all.data.map((p: { id: string }) => p.id),
    created.map((p) => p.id).reverse(),
  );
  const page = await (await app.request('/api/post/?offset=1&limit=2')).json();
  t.is(page.count, 5);
  t.deepEqual(
    page.data.map((p: { id: string }) => p.id),
    all.data.slice(1, 3).map((p: { id: string }) => p.id),
  );
  t.is((await (await app.request('/api/post/?limit=5000')).json()).data.length, 5);
  for (const bad of ['limit=-1', 'offset=-3', 'limit=1.5', 'limit=abc']) {
    const res = await app.request(`/api/post/?${bad}`);
    t.is(res.status, 400, bad);
    t.true(Array.isArray(await res.json()));
  }
});

test.serial('get by UUID and by number; malformed or missing ids are 404', async (t) => {
  const byId = await (await app.request(`/api/post/${created[2].id}`)).json();
  t.is(byId.text, 'post 2');
  t.deepEqual(
    byId.tags.map((x: { name: string }) => x.name),
    ['only2', 'shared'],
  );
  const seq = app.services.postRepository.getById(created[2].id)!.seq;
  t.is((await (await app.request(`/api/post/${seq}`)).json()).id, created[2].id);
  for (const ref of ['not-a-uuid', '0', '99999', '01234567-89ab-7def-8123-456789abcdef', '..%2F..%2Fetc']) {
    const res = await app.request(`/api/post/${ref}`);
    t.is(res.status, 404, ref);
    t.deepEqual(await res.json(), { error: 'post not found' }, ref);
  }
});

test.serial('PUT changes tags as a set, leaves absent fields alone, and reaches the index', async (t) => {
  const { id } = created[0];
  const before = await (await app.request(`/api/post/${id}`)).json();
  const res = await put(id, { tags: ['new', 'shared', 'new'] });
  t.is(res.status, 200);
  const after = await res.json();
  t.deepEqual(
    after.tags.map((x: { name: string }) => x.name),
    ['new', 'shared'],
  );
  t.is(after.text, before.text);
  t.is(after.rating, before.rating);
  t.true(after.updatedAt > before.updatedAt);
  t.deepEqual((await indexed(id))!.tags.sort(), ['new', 'shared']);

  // Unchanged content leaves updatedAt alone.
  const same = await (await put(id, { text: before.text })).json();
  t.is(same.updatedAt, after.updatedAt);

  const patched = await (await put(id, { rating: 'violent', text: 'edited' }, 'PATCH')).json();
  t.like(patched, { rating: 'violent', text: 'edited' });
  t.like(await indexed(id), { rating: 'violent', text: 'edited' });

  t.is((await put('01234567-89ab-7def-8123-456789abcdef', { text: 'x' })).status, 404);
  const bad = await put(id, { rating: 'spicy' });
  t.is(bad.status, 400);
  t.like((await bad.json())[0], { code: 'invalid_enum_value', path: ['rating'] });
  const wrongType = await app.request(`/api/post/${id}`, {
    method: 'PUT',
    headers: { ...user.headers, 'Content-Type': 'text/plain' },
    body: '{"text":"x"}',
  });
  t.is(wrongType.status, 400);
  const broken = await app.request(`/api/post/${id}`, {
    method: 'PUT',
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: '{"text":',
  });
  t.is(broken.status, 400);
  t.is((await (await app.request(`/api/post/${id}`)).json()).text, 'edited');
});

test.serial('DELETE removes record, file and index entry; tags stay', async (t) => {
  const { id, image } = created[4];
  const file = app.services.images.pathOf(image);
  t.true(fs.existsSync(file));
  const res = await app.request(`/api/post/${id}`, { method: 'DELETE', headers: user.headers });
  t.is(res.status, 204);
  t.is((await app.request(`/api/post/${id}`)).status, 404);
  t.false(fs.existsSync(file));
  t.is((await app.request(`/media/${image}`)).status, 404);
  t.is(await indexed(id), undefined);
  t.truthy(app.services.db.prepare('SELECT 1 FROM tags WHERE name = ?').get('only4'));
  t.is((await app.request(`/api/post/${id}`, { method: 'DELETE', headers: user.headers })).status, 404);
});

test.serial('permissions: 401 without a credential, 403 without the bit', async (t) => {
  const viewer = await createUser(app, 0);
  const { id } = created[1];
  t.is((await app.request(`/api/post/${id}`, { method: 'DELETE' })).status, 401);
  t.is((await app.request(`/api/post/${id}`, { method: 'DELETE', headers: viewer.headers })).status, 403);
  t.is(
    (
      await app.request(`/api/post/${id}`, {
        method: 'PUT',
        headers: { ...viewer.headers, 'Content-Type': 'application/json' },
        body: '{}',
      })
    ).status,
    403,
  );
  const upload = await app.request('/api/post/', {
    method: 'POST',
    headers: viewer.headers,
    body: uploadForm({ image: await randomImage(5) }),
  });
  t.is(upload.status, 403);
  t.like(await upload.json(), { error: 'permission denied' });
  const superUser = await createUser(app, 0x1);
  t.is(
    (
      await app.request('/api/post/', {
        method: 'POST',
        headers: superUser.headers,
        body: uploadForm({ image: await randomImage(6) }),
      })
    ).status,
    201,
  );
});

test.serial('media: content type, ETag, caching, Range, path tricks', async (t) => {
  const { image } = created[1];
  const res = await app.request(`/media/${image}`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/png');
  t.regex(res.headers.get('cache-control')!, /max-age=31536000/);
  const etag = res.headers.get('etag')!;
  const body = Buffer.from(await res.arrayBuffer());
  t.deepEqual(body, fs.readFileSync(app.services.images.pathOf(image)));
  t.is((await app.request(`/media/${image}`, { headers: { 'If-None-Match': etag } })).status, 304);
  const part = await app.request(`/media/${image}`, { headers: { Range: 'bytes=1-4' } });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 1-4/${body.length}`);
  t.deepEqual(Buffer.from(await part.arrayBuffer()), body.subarray(1, 5));
  const suffix = await app.request(`/media/${image}`, { headers: { Range: 'bytes=-3' } });
  t.deepEqual(Buffer.from(await suffix.arrayBuffer()), body.subarray(body.length - 3));
  t.is((await app.request(`/media/${image}`, { headers: { Range: `bytes=${body.length + 10}-` } })).status, 416);
  for (const trick of [
    '..%2F..%2Fimgpost.sqlite',
    '%2e%2e%2fetc%2fpasswd',
    `${image}%00.png`,
    'x.png',
    `${image.slice(0, -4)}.svg`,
  ]) {
    const r = await app.request(`/media/${trick}`);
    t.is(r.status, 404, trick);
  }
  // fetch would resolve /media/.. to / (the gallery's home page) before sending: sent as written.
  for (const target of ['/media/..', '/media/%2e%2e', '/media/../imgpost.sqlite']) {
    const r = await send(app.server.port, {
      label: 'trick',
      method: 'GET',
      target,
      headers: [
        ['Host', 'x'],
        ['Connection', 'close'],
      ],
    });
    t.is(r.status, 404, target);
  }
});
