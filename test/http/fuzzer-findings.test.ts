/**
 * Two findings of an outside OpenAPI fuzzer (issue 14): a JSON `null` body was taken as "no change"
 * on the all-optional update endpoints, and the fixed POST paths beside a parameter route
 * (/api/post/search, /api/post/similar, /api/webhook/preview) answered other methods as if their
 * last segment were an id.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let user: TestUser;
let postId: string;
let webhookId: string;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0xffff);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(4400), metadata: { text: 'keep me', tags: ['kept'] } }),
  });
  if (res.status !== 201) throw new Error(`setup upload: ${res.status} ${await res.text()}`);
  postId = (await res.json()).id;
  webhookId = (
    await app.services.webhooks.create(user.id, { url: 'http://127.0.0.1:9/hook', secret: 's', events: ['update'] })
  ).id;
});
test.after.always(() => app?.close());

const send = (method: string, path: string, raw?: string) =>
  app.request(path, {
    method,
    headers: { ...user.headers, ...(raw === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: raw,
  });

test.serial(
  'a JSON null body is 400 on PUT/PATCH /api/post/[id] and PATCH /api/webhook/[id]; nothing changes',
  async (t) => {
    const before = await (await app.request(`/api/post/${postId}`)).json();
    for (const [method, path] of [
      ['PUT', `/api/post/${postId}`],
      ['PATCH', `/api/post/${postId}`],
      ['PATCH', `/api/webhook/${webhookId}`],
    ]) {
      for (const raw of ['null', ' null\n']) {
        const res = await send(method, path, raw);
        t.is(res.status, 400, `${method} ${path} ${JSON.stringify(raw)}`);
        const issues = await res.json();
        t.true(Array.isArray(issues));
        t.like(issues[0], { code: 'invalid_type', expected: 'object', received: 'null', path: [] });
      }
    }
    t.deepEqual(await (await app.request(`/api/post/${postId}`)).json(), before);
    t.is(app.services.postRepository.getById(postId)!.version, 1, 'no version bump, so no update event either');
  },
);

test.serial('no body at all still means "no change" (the fields are all optional)', async (t) => {
  const put = await send('PUT', `/api/post/${postId}`);
  t.is(put.status, 200);
  t.like(await put.json(), { text: 'keep me' });
  const patch = await send('PATCH', `/api/webhook/${webhookId}`);
  t.is(patch.status, 200);
  t.like(await patch.json(), { id: webhookId, events: ['update'] });
});

test.serial('fixed POST paths answer other methods with 405 and Allow: POST, whatever the spelling', async (t) => {
  for (const path of [
    '/api/post/search',
    '/api/post/similar',
    '/api/webhook/preview',
    '/api/post/search/',
    '/API/Post/Similar',
  ]) {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const res = await send(method, path, method === 'GET' || method === 'DELETE' ? undefined : '{}');
      t.is(res.status, 405, `${method} ${path}`);
      t.is(res.headers.get('allow'), 'POST', `${method} ${path}`);
      t.deepEqual(await res.json(), { error: `method ${method} is not allowed here` });
    }
    const head = await send('HEAD', path);
    t.is(head.status, 405, `HEAD ${path}`);
    t.is(head.headers.get('allow'), 'POST');
    const options = await send('OPTIONS', path);
    t.is(options.status, 200, `OPTIONS ${path}`);
    t.is(options.headers.get('allow'), 'POST');
  }
  // The guard still lets POST through to the real handlers, and a real id still routes as one.
  t.is((await send('POST', '/api/post/search', '{}')).status, 200);
  t.is((await send('POST', '/api/webhook/preview', '{"event":"create"}')).status, 200);
  t.is((await send('GET', `/api/post/${postId}`)).status, 200);
  t.is((await send('GET', `/api/webhook/${webhookId}`)).status, 200);
});

test.serial('an invalid access key is still 401 before any 405', async (t) => {
  const res = await app.request('/api/post/search', { method: 'GET', headers: { 'X-Access-Key': 'nope' } });
  t.is(res.status, 401);
});
