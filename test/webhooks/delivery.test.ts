import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { eventually, signatureValid, startReceiver, type Receiver } from './receiver.ts';

let app: TestApp;
let poster: TestUser;
let owner: TestUser;
let receiver: Receiver;
let custom: Receiver;
const SECRET = 'shh: a secret with ünïcode';
const CUSTOM_SECRET = 'another-secret';

test.before(async () => {
  app = await startTestApp();
  poster = await createUser(app, 0x2 | 0x4 | 0x2000);
  owner = await createUser(app); // the webhook's owner need not own the posts (docs/decisions.md §8)
  receiver = await startReceiver(200);
  custom = await startReceiver(204);
});
test.after.always(async () => {
  await app?.close();
  await receiver?.close();
  await custom?.close();
});

const api = (path: string, method: string, user: TestUser, body?: unknown) =>
  app.request(path, {
    method,
    headers: { ...user.headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** How Go's json (and so our `json`) writes a time: RFC 3339, fraction without trailing zeros. */
const goTime = (iso: string) => iso.replace(/\.(\d*?)0*Z$/, (_, f: string) => (f ? `.${f}Z` : 'Z'));

test.serial('create, update and delete events arrive rendered, signed, in order', async (t) => {
  const hook = await api('/api/webhook', 'POST', owner, {
    url: receiver.url,
    secret: SECRET,
    events: ['create', 'update', 'delete'],
  });
  t.is(hook.status, 201);
  const template =
    '{"id": {{.ImageID}}, "event": {{json .Event}}' +
    '{{if .Changes.text}}, "text": {{json .Changes.text.New}}{{end}}' +
    '{{with .Changes.rating}}, "rating": {{json .}}{{end}}' +
    '{{if not (len .Changes)}}, "nothing": true{{end}}, "by": {{json .Initiator.Username}}}';
  const hook2 = await api('/api/webhook', 'POST', owner, {
    url: custom.url,
    secret: CUSTOM_SECRET,
    events: ['update'],
    template,
    label: 'updates only',
  });
  t.is(hook2.status, 201, await hook2.clone().text());

  // create
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: poster.headers,
    body: uploadForm({
      image: await randomImage(4242),
      metadata: { text: 'hello "world"\nsecond <line>', tags: ['b', 'a'], rating: 'violent' },
    }),
  });
  t.is(res.status, 201);
  const post = await res.json();
  const seq = app.services.postRepository.getById(post.id)!.seq;
  const person = (u: TestUser) => `{"id":${u.id},"username":"${u.name}"}`;
  const data = (text: string, rating: string, tags: string[], changes?: string) =>
    `{"imageID":${seq},"text":${text},"rating":"${rating}","tags":${JSON.stringify(tags)},"imageURL":"${post.imageURL}",` +
    `"createdAt":"${goTime(post.createdAt)}"${changes === undefined ? '' : `,"changes":${changes}`},"uploader":${person(poster)}}`;
  const body = (event: string, d: string) => `{"event": "${event}", "data": ${d}, "initiator": ${person(poster)}}`;
  const firstText = '"hello \\"world\\"\\nsecond \\u003cline\\u003e"';

  // update changing all three fields; tags compared as sets, listed sorted
  t.is(
    (await api(`/api/post/${post.id}`, 'PUT', poster, { text: 'new text', tags: ['c', 'b'], rating: 'moderate' }))
      .status,
    200,
  );
  // update that changes nothing (same tags in another order): still an event, with empty changes
  t.is((await api(`/api/post/${post.id}`, 'PUT', poster, { tags: ['b', 'c'] })).status, 200);
  // delete: the post as it was
  t.is((await api(`/api/post/${post.id}`, 'DELETE', poster)).status, 204);

  const got = await receiver.waitFor(4);
  const expected = [
    body('create', data(firstText, 'violet', ['a', 'b'])),
    body(
      'update',
      data(
        '"new text"',
        'moderate',
        ['b', 'c'],
        // The original's struct order (changes before uploader), its map keys sorted.
        `{"rating":{"old":"violet","new":"moderate"},"tags":{"old":["a","b"],"new":["b","c"]},"text":{"old":${firstText},"new":"new text"}}`,
      ),
    ),
    body('update', data('"new text"', 'moderate', ['b', 'c'], '{}')),
    body('delete', data('"new text"', 'moderate', ['b', 'c'])),
  ];
  t.deepEqual(
    got.map((r) => r.body),
    expected,
  );
  for (const [i, r] of got.entries()) {
    t.is(r.method, 'POST');
    t.is(r.path, '/hook');
    t.is(r.headers['content-type'], 'application/json');
    t.is(r.headers['x-webhook-event'], ['create', 'update', 'update', 'delete'][i]);
    t.regex(String(r.headers['x-webhook-delivery']), /^[0-9a-f-]{36}$/);
    t.true(signatureValid(r, SECRET), `signature of event ${i}`);
    t.false(signatureValid(r, 'wrong secret'));
    t.regex(String(r.headers['x-signature']), /^[0-9a-f]{64}$/, 'lowercase hex');
  }
  t.is(new Set(got.map((r) => r.headers['x-webhook-delivery'])).size, 4, 'a unique delivery id each');

  // The custom template sees only update events, with guarded Changes entries.
  const updates = await custom.waitFor(2);
  t.deepEqual(
    updates.map((r) => r.body),
    [
      `{"id": ${seq}, "event": "update", "text": "new text", "rating": {"old":"violet","new":"moderate"}, "by": "${poster.name}"}`,
      `{"id": ${seq}, "event": "update", "nothing": true, "by": "${poster.name}"}`,
    ],
  );
  t.true(updates.every((r) => signatureValid(r, CUSTOM_SECRET)));

  // Every attempt is listed for the owner, newest first, and the record shows the last outcome.
  const { id } = await hook.json();
  const attempts = await eventually(async () => {
    const list = await (await api(`/api/webhook/${id}/deliveries`, 'GET', owner)).json();
    return list.length === 4 && list;
  });
  t.deepEqual(
    attempts.map((a: { event: string; outcome: string; responseStatus: number; postId: string }) => [
      a.event,
      a.outcome,
      a.responseStatus,
      a.postId,
    ]),
    [
      ['delete', 'success', 200, post.id],
      ['update', 'success', 200, post.id],
      ['update', 'success', 200, post.id],
      ['create', 'success', 200, post.id],
    ],
  );
  t.deepEqual(
    attempts.map((a: { deliveryId: string }) => a.deliveryId).reverse(),
    got.map((r) => r.headers['x-webhook-delivery']),
  );
  const record = await (await api(`/api/webhook/${id}`, 'GET', owner)).json();
  t.like(record, { state: 'active', failureCount: 0, lastResponseStatus: 200 });
  t.truthy(record.lastDeliveryAt);
});

test.serial('the template in force at send time renders; events of other kinds are not sent', async (t) => {
  const r = await startReceiver(200);
  t.teardown(() => r.close());
  const res = await api('/api/webhook', 'POST', owner, {
    url: r.url,
    secret: 's',
    events: ['delete'],
    template: '{"deleted": {{.ImageID}}}',
  });
  const hook = await res.json();
  const created = await app.request('/api/post/', {
    method: 'POST',
    headers: poster.headers,
    body: uploadForm({ image: await randomImage(4343) }),
  });
  const post = await created.json();
  const seq = app.services.postRepository.getById(post.id)!.seq;
  t.is(
    (await api(`/api/webhook/${hook.id}`, 'PATCH', owner, { template: '{"gone": {{json .Text}}, "n": {{.ImageID}}}' }))
      .status,
    200,
  );
  t.is((await api(`/api/post/${post.id}`, 'DELETE', poster)).status, 204);
  const [got] = await r.waitFor(1);
  t.is(got.body, `{"gone": "", "n": ${seq}}`);
  await app.services.webhookDispatcher.whenIdle();
  t.is(r.received.length, 1, 'no create event for a delete-only webhook');
});
