/**
 * The OpenAPI document states the rules the service enforces (issue 14): every $ref resolves,
 * integer query parameters carry the ranges the routes check, and the tag-name and webhook-URL
 * patterns accept exactly what the service accepts on a table of edge cases. Each rule is checked
 * against the running service, so document and code cannot drift apart silently.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

type Json = Record<string, any>;

let app: TestApp;
let user: TestUser;
let admin: TestUser;
let doc: Json;
let postId: string;
/** a pool's id, for /api/pool/{id} paths (docs/decisions.md §19) */
let poolId: string;
test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  user = await createUser(app, 0x2 | 0x4);
  admin = await createUser(app, 0x1);
  doc = await (await app.request('/openapi.json')).json();
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(140), metadata: { text: 'precision' } }),
  });
  postId = (await res.json()).id;
  const pool = await app.request('/api/pool', {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'precision', postIds: [postId] }),
  });
  poolId = String((await pool.json()).id);
});
test.after.always(() => app?.close());

/** Every `$ref` in `value` with its JSON path. */
function refsIn(value: unknown, at = '$', out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((v, i) => refsIn(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push([at, v]);
      else refsIn(v, `${at}.${k}`, out);
    }
  return out;
}

/** A local JSON pointer (#/a/b~1c) resolved in `root`, or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

test('no $ref in the document dangles (the webhook body included)', (t) => {
  const refs = refsIn(doc);
  t.true(refs.length > 20, `only ${refs.length} $refs: the walk is not reaching the document`);
  t.deepEqual(
    refs.filter(([, ref]) => resolvePointer(doc, ref) === undefined).map(([at, ref]) => `${at} -> ${ref}`),
    [],
  );
  t.true(refs.some(([, ref]) => ref === '#/components/schemas/DefaultWebhookBody'));
  // The walker itself finds a dangling reference.
  t.is(resolvePointer(doc, '#/components/schemas/Nope'), undefined);
  t.deepEqual(refsIn({ a: [{ $ref: '#/x' }] }), [['$.a[0]', '#/x']]);
});

test('GET /openapi.json is documented as an object', (t) => {
  const schema = doc.paths['/openapi.json'].get.responses['200'].content['application/json'].schema;
  const target = resolvePointer(doc, schema.$ref) as Json;
  t.is(target.type, 'object');
  t.deepEqual([...target.required].sort(), ['info', 'openapi', 'paths']);
});

/** Calls an operation with one query parameter set. Similar needs an image, the others take JSON. */
async function call(method: string, template: string, query: string): Promise<number> {
  const path = template.replace('{id}', template.startsWith('/api/pool/') ? poolId : postId);
  if (path === '/api/post/similar') {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(await randomImage(141))], { type: 'image/png' }), 'q.png');
    return (await app.request(`${path}?${query}`, { method: 'POST', body: form })).status;
  }
  // A super user's key: operations that need an account (the caller's favorites, the user list) answer too.
  const headers = { 'X-Access-Key': admin.accessKey };
  const init: RequestInit =
    method === 'get'
      ? { headers }
      : { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' };
  return (await app.request(`${path}?${query}`, init)).status;
}

test('integer query parameters state their range and default, and the service enforces exactly that range', async (t) => {
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      for (const p of (op.parameters ?? []) as Json[]) {
        if (p.in !== 'query') continue;
        const s = p.schema as Json;
        // Every numeric query parameter is an integer with both bounds and a default, not a digit pattern.
        t.false(
          s.type === 'string' && /\\d/.test(s.pattern ?? ''),
          `${method} ${path} ${p.name}: a string pattern where an integer is meant`,
        );
        if (s.type !== 'integer') continue;
        t.true(
          Number.isSafeInteger(s.minimum) && Number.isSafeInteger(s.maximum) && Number.isSafeInteger(s.default),
          `${method} ${path} ${p.name}: ${JSON.stringify(s)}`,
        );
        const where = `${method} ${path} ${p.name}`;
        t.is(await call(method, path, `${p.name}=${s.minimum}`), 200, `${where}=${s.minimum}`);
        t.is(await call(method, path, `${p.name}=${s.maximum}`), 200, `${where}=${s.maximum}`);
        t.is(await call(method, path, `${p.name}=${s.minimum - 1}`), 400, `${where}=${s.minimum - 1}`);
        // Past the maximum (as a decimal string: MAX_SAFE_INTEGER + 1 has no exact double).
        t.is(
          await call(method, path, `${p.name}=${BigInt(s.maximum) + 1n}`),
          400,
          `${where}=${BigInt(s.maximum) + 1n}`,
        );
        t.is(await call(method, path, `${p.name}=1.5`), 400, `${where}=1.5`);
        checked++;
      }
    }
  }
  t.true(checked >= 8, `only ${checked} integer parameters found`);
});

test('string lengths are code points, as JSON Schema counts them: a tag prefix of 64 emoji is fine, 65 are not', async (t) => {
  const prefix = (doc.paths['/api/tag'].get.parameters as Json[]).find((p) => p.name === 'prefix')!;
  t.is(prefix.schema.maxLength, 64);
  t.is((await app.request(`/api/tag?prefix=${encodeURIComponent('😀'.repeat(64))}`)).status, 200);
  t.is((await app.request(`/api/tag?prefix=${encodeURIComponent('😀'.repeat(65))}`)).status, 400);
});

test('the tag-name pattern accepts exactly the names the service accepts', async (t) => {
  const pattern = new RegExp(doc.components.schemas.TagName.pattern, 'u');
  const names = [
    'cat',
    ' cat ',
    '\tcat\n',
    'Straße',
    'İstanbul',
    '猫',
    'a'.repeat(64),
    'a'.repeat(65),
    ` ${'b'.repeat(64)} `,
    '😀'.repeat(64),
    '😀'.repeat(65),
    '',
    '   ',
    'two words',
    'a\u00a0b',
    'a\u200bb',
    'a\u0007',
    '\u00ad',
    'x\ud800',
    'ok-tag_1.2',
  ];
  for (const name of names) {
    const res = await app.request(`/api/post/${postId}`, {
      method: 'PUT',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ tags: [name] }),
    });
    t.is(
      res.status === 200,
      pattern.test(name),
      `${JSON.stringify(name)}: service ${res.status}, pattern ${pattern.test(name)}`,
    );
  }
});

test('the webhook URL rule in the document matches the service on its edge cases', async (t) => {
  const body = doc.paths['/api/webhook'].post.requestBody.content['application/json'].schema;
  const url = body.properties.url as Json;
  t.is(url.format, 'uri');
  t.is(url.maxLength, 2048);
  const pattern = new RegExp(url.pattern, 'u');
  const patch = doc.paths['/api/webhook/{id}'].patch.requestBody.content['application/json'].schema.properties.url;
  t.is(patch.pattern, url.pattern);
  for (const target of [
    'https://example.com/hook',
    'HTTP://example.com',
    'http://127.0.0.1:9/x?y#z',
    'ftp://example.com/',
    'example.com/hook',
    'http://user:pw@example.com/',
    'mailto:a@example.com',
    'http://',
  ]) {
    const res = await app.request('/api/webhook', {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: target, secret: 'secret', events: ['create'] }),
    });
    t.is(res.status === 201, pattern.test(target), `${target}: service ${res.status}, pattern ${pattern.test(target)}`);
    if (res.status === 201)
      await app.request(`/api/webhook/${(await res.json()).id}`, { method: 'DELETE', headers: user.headers });
  }
});
