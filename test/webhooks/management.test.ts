import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let alice: TestUser;
let bob: TestUser;
const SECRET = 'top-secret-value-9f8e7d';
/** Every response body seen, to check that none carries the secret. */
const seen: string[] = [];

test.before(async () => {
  app = await startTestApp();
  alice = await createUser(app);
  bob = await createUser(app);
});
test.after.always(() => app?.close());

async function call(user: TestUser | null, method: string, path: string, body?: unknown) {
  const res = await app.request(path, {
    method,
    headers: { ...(user?.headers ?? {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  seen.push(text);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const valid = (extra: Record<string, unknown> = {}) => ({
  url: 'http://127.0.0.1:9/hook',
  secret: SECRET,
  events: ['create'],
  ...extra,
});

test.serial('create, read, list, edit, delete; the secret is write-only', async (t) => {
  const created = await call(
    alice,
    'POST',
    '/api/webhook',
    valid({ label: 'mine', events: ['delete', 'create', 'create'] }),
  );
  t.is(created.status, 201);
  t.deepEqual(
    Object.keys(created.body).sort(),
    [
      'createdAt',
      'events',
      'failureCount',
      'id',
      'label',
      'lastDeliveryAt',
      'lastResponseStatus',
      'state',
      'template',
      'url',
    ].sort(),
  );
  t.like(created.body, {
    label: 'mine',
    url: 'http://127.0.0.1:9/hook',
    events: ['create', 'delete'],
    state: 'active',
    failureCount: 0,
    lastDeliveryAt: null,
    lastResponseStatus: null,
    template: null,
  });
  const { id } = created.body;

  t.deepEqual((await call(alice, 'GET', `/api/webhook/${id}`)).body, created.body);
  t.deepEqual((await call(alice, 'GET', '/api/webhook')).body, [created.body]);
  t.deepEqual((await call(bob, 'GET', '/api/webhook')).body, []);

  const patched = await call(alice, 'PATCH', `/api/webhook/${id}`, {
    label: null,
    secret: 'a-new-secret-123',
    events: ['update'],
    template: '{"n": {{.ImageID}}}',
  });
  t.is(patched.status, 200);
  t.like(patched.body, { id, label: null, events: ['update'], template: '{"n": {{.ImageID}}}' });
  t.is(app.services.db.prepare('SELECT secret FROM webhooks WHERE id = ?').pluck().get(id), 'a-new-secret-123');
  t.is((await call(alice, 'PATCH', `/api/webhook/${id}`, {})).status, 200, 'an empty patch changes nothing');
  t.is((await call(alice, 'PATCH', `/api/webhook/${id}`, { template: null })).body.template, null);

  t.is((await call(alice, 'DELETE', `/api/webhook/${id}`)).status, 204);
  t.is((await call(alice, 'GET', `/api/webhook/${id}`)).status, 404);
  t.is((await call(alice, 'DELETE', `/api/webhook/${id}`)).status, 404);
});

test.serial('the 11th webhook of a user is 409; others are unaffected', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await call(alice, 'POST', '/api/webhook', valid({ label: `#${i}` }));
    t.is(res.status, 201);
    ids.push(res.body.id);
  }
  const eleventh = await call(alice, 'POST', '/api/webhook', valid());
  t.is(eleventh.status, 409);
  t.deepEqual(Object.keys(eleventh.body), ['error']);
  t.is((await call(bob, 'POST', '/api/webhook', valid())).status, 201, 'the limit is per user');
  // Concurrent creates cannot squeeze past the limit either.
  t.is((await call(alice, 'DELETE', `/api/webhook/${ids.pop()}`)).status, 204);
  const racing = await Promise.all(Array.from({ length: 5 }, () => call(alice, 'POST', '/api/webhook', valid())));
  t.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
  t.is((await call(alice, 'GET', '/api/webhook')).body.length, 10);
  for (const hook of (await call(alice, 'GET', '/api/webhook')).body)
    await call(alice, 'DELETE', `/api/webhook/${hook.id}`);
});

test.serial("another user's webhook is 404 for every operation", async (t) => {
  const { body: hook } = await call(alice, 'POST', '/api/webhook', valid());
  const ops: [string, string, unknown?][] = [
    ['GET', `/api/webhook/${hook.id}`],
    ['PATCH', `/api/webhook/${hook.id}`, { label: 'stolen' }],
    ['DELETE', `/api/webhook/${hook.id}`],
    ['POST', `/api/webhook/${hook.id}/reactivate`],
    ['GET', `/api/webhook/${hook.id}/deliveries`],
  ];
  for (const [method, path, body] of ops) {
    const res = await call(bob, method, path, body);
    t.is(res.status, 404, `${method} ${path}`);
    t.deepEqual(Object.keys(res.body), ['error']);
  }
  t.deepEqual((await call(alice, 'GET', `/api/webhook/${hook.id}`)).body, hook, 'untouched');
  for (const ref of ['not-a-uuid', '00000000-0000-4000-8000-000000000000'])
    t.is((await call(alice, 'GET', `/api/webhook/${ref}`)).status, 404);
  for (const [method, path, body] of [
    ...ops,
    ['GET', '/api/webhook'],
    ['POST', '/api/webhook', valid()],
    ['POST', '/api/webhook/preview', { event: 'create' }],
  ] as [string, string, unknown?][])
    t.is((await call(null, method, path, body)).status, 401, `anonymous ${method} ${path}`);
  t.is((await call(alice, 'POST', `/api/webhook/${hook.id}/reactivate`)).status, 200);
  t.deepEqual((await call(alice, 'GET', `/api/webhook/${hook.id}/deliveries`)).body, []);
  await call(alice, 'DELETE', `/api/webhook/${hook.id}`);
});

test.serial('validation: the spec issue array, with paths', async (t) => {
  const cases: [unknown, (string | number)[]][] = [
    [{ ...valid(), secret: undefined }, ['secret']],
    [valid({ secret: '' }), ['secret']],
    [valid({ secret: 'x'.repeat(257) }), ['secret']],
    [valid({ events: [] }), ['events']],
    [valid({ events: ['create', 'publish'] }), ['events', 1]],
    [valid({ url: 42 }), ['url']],
    [valid({ url: 'ftp://example.com/' }), ['url']],
    [valid({ url: 'http://user:pw@127.0.0.1/' }), ['url']],
    [valid({ url: 'not a url' }), ['url']],
    [valid({ colour: 'red' }), []],
    [valid({ template: 'x'.repeat(64 * 1024 + 1) }), ['template']],
    [valid({ label: 7 }), ['label']],
  ];
  for (const [body, path] of cases) {
    const res = await call(alice, 'POST', '/api/webhook', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.true(Array.isArray(res.body));
    t.deepEqual(res.body[0].path, path, JSON.stringify(body).slice(0, 80));
    for (const issue of res.body)
      t.deepEqual(Object.keys(issue).sort(), ['code', 'expected', 'message', 'path', 'received']);
  }
  const { body: hook } = await call(alice, 'POST', '/api/webhook', valid());
  t.deepEqual((await call(alice, 'PATCH', `/api/webhook/${hook.id}`, { events: [] })).body[0].path, ['events']);
  t.deepEqual(
    (await call(alice, 'PATCH', `/api/webhook/${hook.id}`, { state: 'active' })).body[0].code,
    'unrecognized_keys',
  );
  const bad = await app.request(`/api/webhook`, {
    method: 'POST',
    headers: { ...alice.headers, 'Content-Type': 'application/json' },
    body: '{"url": ',
  });
  t.is(bad.status, 400);
  await call(alice, 'DELETE', `/api/webhook/${hook.id}`);
});

test.serial('templates are test-rendered on save: errors name line and column', async (t) => {
  const cases: [string, RegExp][] = [
    ['{\n  "id": {{.ImageID}\n}', /line 2, column \d+/],
    ['{\n  "x": {{.Data.NoSuchField}}\n}', /line 2, column \d+.*NoSuchField/],
    ['{"a": {{if .Text}}1{{end}}', /line 1, column \d+/],
    ['{"text": {{.Text}}}', /not valid JSON/],
    ['{"ok": true}{{if eq .Event "delete"}},{{end}}', /not valid JSON.*delete/],
    ['{"a": {{nosuchfunc 1}}}', /line 1, column \d+/],
  ];
  for (const [template, message] of cases) {
    const res = await call(alice, 'POST', '/api/webhook', valid({ template, events: ['create', 'delete'] }));
    t.is(res.status, 400, template);
    t.deepEqual(res.body[0].path, ['template'], template);
    t.regex(res.body[0].message, message, template);
  }
  // A missing key of the update's Changes is no value (json null); the nil Changes of create has no
  // keys to read at all (docs/decisions.md §8), so the same template is refused for create.
  const template = '{"t": {{json .Changes.zz}}, "r": {{json .Changes.rating.New}}}';
  const both = await call(alice, 'POST', '/api/webhook', valid({ events: ['create', 'update'], template }));
  t.is(both.status, 400);
  t.regex(both.body[0].message, /nil pointer evaluating \*webhook\.Changes\.zz.*create event/);
  const lenient = await call(alice, 'POST', '/api/webhook', valid({ events: ['update'], template }));
  t.is(lenient.status, 201);
  // A PATCH re-checks the template against the events it will be used for.
  const narrow = await call(
    alice,
    'POST',
    '/api/webhook',
    valid({ events: ['update'], template: '{"old": {{json .Changes.text.Old}}}' }),
  );
  t.is(narrow.status, 201);
  const invalidPatch = await call(alice, 'PATCH', `/api/webhook/${narrow.body.id}`, { template: '{{.Nope}}' });
  t.is(invalidPatch.status, 400);
  t.regex(invalidPatch.body[0].message, /line 1, column \d+/);
  for (const id of [lenient.body.id, narrow.body.id]) await call(alice, 'DELETE', `/api/webhook/${id}`);
});

test.serial('preview renders sample data; a template error is 400 with line and column', async (t) => {
  const def = await call(alice, 'POST', '/api/webhook/preview', { event: 'update' });
  t.is(def.status, 200);
  const parsed = JSON.parse(def.body.body);
  t.is(parsed.event, 'update');
  t.like(parsed.data, { imageID: 42, rating: 'violet', tags: ['harbour', 'sunset'] });
  // The original's struct order: changes (update only) before uploader.
  t.deepEqual(Object.keys(parsed.data), [
    'imageID',
    'text',
    'rating',
    'tags',
    'imageURL',
    'createdAt',
    'changes',
    'uploader',
  ]);
  t.deepEqual(parsed.data.changes.tags, { old: ['sea', 'sunset'], new: ['harbour', 'sunset'] });
  t.true(parsed.data.imageURL.startsWith(`${app.url}/media/`));
  t.deepEqual(Object.keys(parsed), ['event', 'data', 'initiator']);

  // An empty (all white space) template is no template: the default body, as the original sent it.
  for (const template of ['', ' \n\t ']) {
    const empty = await call(alice, 'POST', '/api/webhook/preview', { event: 'update', template });
    t.is(empty.status, 200);
    t.is(empty.body.body, def.body.body);
  }

  const created = await call(alice, 'POST', '/api/webhook/preview', { event: 'create' });
  t.false('changes' in JSON.parse(created.body.body).data, 'no changes on create');

  const custom = await call(alice, 'POST', '/api/webhook/preview', {
    event: 'delete',
    template:
      '{{- /* a comment */ -}}\n{"who": {{json .Initiator.Username}}, "tags": [{{range $i, $t := .Tags}}{{if $i}},{{end}}{{json $t}}{{end}}], "changed": {{if .Changes}}true{{else}}false{{end}}}',
  });
  t.is(custom.status, 200);
  t.is(custom.body.body, '{"who": "alice", "tags": ["harbour","sunset"], "changed": false}');

  const broken = await call(alice, 'POST', '/api/webhook/preview', {
    event: 'create',
    template: '{\n\n  "a": {{ .Text | | print }}\n}',
  });
  t.is(broken.status, 400);
  t.deepEqual(broken.body[0].path, ['template']);
  t.regex(broken.body[0].message, /line 3, column \d+/);
  t.is((await call(alice, 'POST', '/api/webhook/preview', { event: 'publish' })).status, 400);
  t.is((await call(alice, 'POST', '/api/webhook/preview', { template: '{}' })).status, 400);
});

test.serial('the secret never appears in a response or a log line', (t) => {
  t.true(seen.length > 50);
  for (const body of seen) {
    t.false(body.includes(SECRET));
    t.false(body.includes('a-new-secret-123'));
    t.false(/"secret"\s*:/.test(body));
  }
  for (const line of app.logs) t.false(line.includes(SECRET) || line.includes('a-new-secret-123'));
});
