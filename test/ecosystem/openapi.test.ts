/**
 * The OpenAPI document is the contract: it covers every route the app serves, and every response
 * a representative run over all endpoints receives matches it (status, content type, body).
 * The run records through the same hook as the rest of the suite (IMGPOST_RECORD_RESPONSES, see
 * response-recorder.ts). `npm test` (test/run-suite.ts) records every test file's responses into one
 * directory and checks them all after ava with validate-recorded.ts, tested here on its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { galleryRoutes } from '../../src/gallery/routes.ts';
import { createApp } from '../../src/app.ts';
import { OPERATIONS } from '../../src/openapi/operations.ts';
import { openApiDocument } from '../../src/openapi/registry.ts';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { SoftwareAuthenticator } from '../passkeys/software-authenticator.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { sharedS3Env } from '../helpers/s3.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { checkRecordings, formatViolations } from './contract.ts';
import { JsonSchemaValidator } from './json-schema.ts';
import { readRecordings, recordingFile, type RecordedResponse } from './response-recorder.ts';
import { validateDirectory } from './validate-recorded.ts';

// Set before the app starts: startTestApp reads it. A run that records the whole suite sets it outside.
const external = process.env.IMGPOST_RECORD_RESPONSES;
const recordDir = external ?? tempDir('imgpost-responses');
process.env.IMGPOST_RECORD_RESPONSES = recordDir;

let app: TestApp;
let receiver: Receiver;
test.before(async () => {
  app = await startTestApp({ REGISTRATION: 'open' });
  receiver = await startReceiver(200);
});
test.after.always(async () => {
  await receiver?.close();
  await app?.close();
  if (!external) fs.rmSync(recordDir, { recursive: true, force: true });
});

test('the document is OpenAPI 3.1 and uses only keywords the contract check understands', async (t) => {
  const res = await app.request('/openapi.json');
  t.is(res.status, 200);
  const doc = await res.json();
  t.is(doc.openapi, '3.1.0');
  t.deepEqual(doc.servers, [{ url: app.url }]);
  const ids = OPERATIONS.map((o) => o.operationId);
  t.is(new Set(ids).size, ids.length, 'operation ids are unique');
  t.deepEqual(JsonSchemaValidator.unknownKeywords(Object.values(doc.components.schemas)), []);
  const inline = Object.values(
    doc.paths as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
    >,
  )
    .flatMap((item) => Object.values(item))
    .flatMap((op) => Object.values(op.responses))
    .flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema));
  t.deepEqual(JsonSchemaValidator.unknownKeywords(inline), []);
  // The request schemas are the routes' own: a sample check that the strict ones stayed strict.
  t.is(doc.paths['/api/post/{id}'].put.requestBody.content['application/json'].schema.additionalProperties, false);
});

test('every route the app serves is documented, and every documented operation exists', (t) => {
  const koa = createApp(app.services);
  const served = new Set<string>();
  // The gallery's pages and files are for people (HTML, CSS, JS), not API operations.
  const pages = new Set(galleryRoutes(app.services).stack.map((layer) => String(layer.path)));
  for (const mw of koa.middleware as { router?: { stack: { path: string | RegExp; methods: string[] }[] } }[]) {
    for (const layer of mw.router?.stack ?? []) {
      if (typeof layer.path !== 'string' || pages.has(layer.path)) continue;
      const p = layer.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
      for (const m of layer.methods) if (m !== 'HEAD') served.add(`${m.toLowerCase()} ${p}`);
    }
  }
  const documented = new Set(OPERATIONS.map((o) => `${o.method} ${o.path.replace(/(.)\/$/, '$1')}`));
  t.deepEqual([...served].filter((r) => !documented.has(r)).sort(), [], 'served but not documented');
  t.deepEqual([...documented].filter((r) => !served.has(r)).sort(), [], 'documented but not served');
});

test('GET /docs is a self-contained page under a strict CSP', async (t) => {
  const res = await app.request('/docs');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  t.regex(csp, /default-src 'none'/);
  const html = await res.text();
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  t.truthy(nonce);
  t.true(html.includes(`<script nonce="${nonce}">`));
  t.true(html.includes("fetch('openapi.json')"));
  // No CDN or any other outside resource.
  t.false(/(src|href)="https?:/.test(html));
});

/**
 * Direct uploads (issue 26): 409 on this app's local store; the rest on a second app whose store is
 * the suite's S3Proxy (it records into the same directory).
 */
async function directUploads(
  call: (
    method: string,
    url: string,
    init?: { json?: unknown; form?: FormData; headers?: Record<string, string> },
  ) => Promise<Response>,
): Promise<void> {
  const local = await createUser(app, 0x2);
  await call('POST', '/api/post/upload-url', { headers: local.headers, json: { contentType: 'image/png' } }); // 409
  const s3app = await startTestApp(await sharedS3Env());
  try {
    const [user, weak] = [await createUser(s3app, 0x2), await createUser(s3app, 0)];
    const at = (url: string, init: { json?: unknown; form?: FormData; headers: Record<string, string> }) =>
      s3app.request(url, {
        method: 'POST',
        headers: { ...init.headers, ...(init.json ? { 'Content-Type': 'application/json' } : {}) },
        body: init.json ? JSON.stringify(init.json) : init.form,
      });
    const image = await randomImage(9150);
    const grant = await (
      await at('/api/post/upload-url', {
        headers: user.headers,
        json: { contentType: 'image/png', size: image.length },
      })
    ).json();
    await fetch(grant.url, { method: 'PUT', headers: grant.headers, body: new Uint8Array(image) });
    const form = uploadForm({ metadata: { text: 'direct' } });
    form.append('key', grant.key);
    await (await at('/api/post/', { headers: user.headers, form })).arrayBuffer(); // 201
    await (await at('/api/post/', { headers: user.headers, form })).arrayBuffer(); // 400: used
    await (await at('/api/post/upload-url', { headers: user.headers, json: { size: 'big' } })).arrayBuffer(); // 400
    await (await at('/api/post/upload-url', { headers: weak.headers, json: {} })).arrayBuffer(); // 403
  } finally {
    await s3app.close();
  }
}

/** Exercises every endpoint, successes and the usual failures; returns nothing, the recorder keeps it all. */
async function representativeRun(user: TestUser, weak: TestUser): Promise<void> {
  const call = async (
    method: string,
    url: string,
    init: { json?: unknown; form?: FormData; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: BodyInit | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) body = init.form;
    const res = await app.request(url, { method, headers, body });
    await res.arrayBuffer();
    return res;
  };
  const as = (u: TestUser) => u.headers;
  const json = async (res: Response) => res.json();

  // accounts
  await call('POST', '/api/account/login', { json: { username: user.name, password: 'correct horse battery' } });
  await call('POST', '/api/account/login', { json: { username: user.name, password: 'wrong password!' } });
  await call('POST', '/api/account/login', { json: { username: 42 } });
  await call('GET', '/api/account', { headers: as(user) });
  await call('GET', '/api/account');
  await call('GET', '/api/account', { headers: { 'X-Access-Key': 'not_a_real_key' } });
  const reset = await app.request('/api/account/reset-key', { headers: as(weak) });
  weak.headers = { 'X-Access-Key': (await json(reset)).accessKey };
  await call('GET', '/api/account', { headers: as(weak) });

  // posts
  const image = await randomImage(9100, 300, 200);
  const created = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({ image, metadata: { text: 'contract', tags: ['b', 'a'], rating: 'moderate' } }),
    }),
  );
  await call('POST', '/api/post/', { headers: as(user), form: uploadForm({ image }) }); // 409 near-duplicate
  await call('POST', '/api/post/', {
    headers: as(user),
    form: uploadForm({ image: Buffer.from('not an image'), type: 'image/png' }),
  });
  await call('POST', '/api/post/', {
    headers: as(user),
    form: uploadForm({ image: await randomImage(9101), metadata: { rating: 'awful' } }),
  });
  await call('POST', '/api/post/', { headers: as(weak), form: uploadForm({ image: await randomImage(9102) }) }); // 403
  const second = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({ image: await randomImage(9103, 120, 400, 'jpeg'), type: 'image/jpeg' }),
    }),
  );
  await directUploads(call);
  await call('GET', '/api/post/');
  await call('GET', '/api/post/?offset=1&limit=1');
  await call('GET', '/api/post/?limit=-1');
  await call('HEAD', '/api/post/');
  await call('GET', `/api/post/${created.id}`);
  await call('GET', '/api/post/1');
  await call('GET', '/api/post/not-a-post');
  await call('PUT', `/api/post/${created.id}`, { headers: as(user), json: { text: 'edited', tags: ['c'] } });
  await call('PATCH', `/api/post/${created.id}`, { headers: as(user), json: { rating: 'violent' } });
  await call('PUT', `/api/post/${created.id}`, { headers: as(user), json: { colour: 'red' } });
  await call('PUT', '/api/post/01900000-0000-7000-8000-000000000000', { headers: as(user), json: {} });
  await call('PUT', `/api/post/${created.id}`, { json: { text: 'anonymous' } });

  // thumbnails
  await call('GET', `/api/post/${created.id}/thumbnails`);
  await call('GET', '/api/post/999999/thumbnails');

  // post history
  await call('GET', `/api/post/${created.id}/versions`);
  await call('GET', `/api/post/${created.id}/versions?offset=1&limit=1`);
  await call('GET', `/api/post/${created.id}/versions?limit=-1`);
  await call('GET', '/api/post/not-a-post/versions');
  await call('POST', `/api/post/${created.id}/revert`, { headers: as(user), json: { version: 1 } });
  await call('POST', `/api/post/${created.id}/revert`, { headers: as(user), json: { version: 99 } });
  await call('POST', `/api/post/${created.id}/revert`, { headers: as(user), json: { version: 0 } });
  await call('POST', `/api/post/${created.id}/revert`, { headers: as(weak), json: { version: 1 } });

  // tags
  await call('GET', '/api/tag');
  await call('GET', '/api/tag?prefix=C&offset=0&limit=5');
  await call('GET', '/api/tag?limit=x');
  await call('GET', '/api/tag/a');
  await call('GET', '/api/tag/no-such-tag');
  // Tag governance (docs/decisions.md §15): 'a' and 'b' are the created post's tags.
  const governor = await createUser(app, 0x2 | 0x4 | 0x1000);
  await call('PUT', '/api/tag/b-alias/alias', { headers: as(governor), json: { target: 'b' } });
  await call('PUT', '/api/tag/x/alias', { headers: as(governor), json: { target: 'x' } }); // 400
  await call('PUT', '/api/tag/x/alias', { headers: as(user), json: { target: 'b' } }); // 403
  await call('GET', '/api/tag/alias?limit=5');
  await call('DELETE', '/api/tag/b-alias/alias', { headers: as(governor) });
  await call('DELETE', '/api/tag/b-alias/alias', { headers: as(governor) }); // 404
  await call('PUT', '/api/tag/a/implies/b', { headers: as(governor) });
  await call('PUT', '/api/tag/b/implies/a', { headers: as(governor) }); // 400: a cycle
  await call('PUT', '/api/tag/a/implies/b', { headers: as(user) }); // 403
  await call('DELETE', '/api/tag/a/implies/b', { headers: as(governor) });
  await call('DELETE', '/api/tag/a/implies/b', { headers: as(governor) }); // 404
  await call('DELETE', '/api/tag/a/implies/b', { headers: as(user) }); // 403
  await call('DELETE', '/api/tag/a/alias', { headers: as(user) }); // 403

  // search
  await call('POST', '/api/post/search', {
    json: { filter: [{ type: 'tag', op: 'include', value: 'c' }], order: [{ key: 'createdAt', direction: 'desc' }] },
  });
  await call('POST', '/api/post/search?limit=1', {});
  await call('POST', '/api/post/search', { json: { filter: [] } });
  await call('POST', '/api/post/search', { json: { filter: [{ type: 'text', op: 'contains', value: 5 }] } });
  await call('POST', '/api/post/similar', { form: uploadForm({ image }) });
  await call('POST', '/api/post/similar?maxDiff=12', { form: uploadForm({ image }) });
  await call('POST', '/api/post/similar?robust=1', { form: uploadForm({ image }) });
  await call('POST', '/api/post/similar?robust=yes', { form: uploadForm({ image }) });
  await call('GET', `/api/post/${second.id}/similar?robust=1`);
  await call('GET', `/api/post/${second.id}/similar?maxDiff=99`);
  await call('GET', '/api/post/not-a-post/similar');
  await call('POST', '/image/search', {
    json: { conditions: [{ type: 'tagInclude', value: 'c' }], orderBy: 'uploadDate', order: 'desc' },
  });
  await call('POST', '/image/search?limit=0', { json: { conditions: [] } });
  await call('POST', '/image/search', { json: { conditions: [{ type: 'nope', value: 'x' }] } });

  // webhooks
  const hook = await json(
    await app.request('/api/webhook', {
      method: 'POST',
      headers: { ...as(user), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        url: receiver.url,
        secret: 's3cret-value',
        events: ['create', 'update', 'delete'],
        label: 'contract',
      }),
    }),
  );
  await call('POST', '/api/webhook', {
    headers: as(user),
    json: { url: 'ftp://example.com', secret: 'x', events: [] },
  });
  await call('POST', '/api/webhook', { json: { url: receiver.url, secret: 'x', events: ['create'] } });
  await call('GET', '/api/webhook', { headers: as(user) });
  await call('GET', `/api/webhook/${hook.id}`, { headers: as(user) });
  await call('GET', `/api/webhook/${hook.id}`, { headers: as(weak) }); // another user's: 404
  await call('PATCH', `/api/webhook/${hook.id}`, {
    headers: as(user),
    json: { label: null, template: '{"e": {{json .Event}}, "id": {{.ImageID}}}' },
  });
  await call('PATCH', `/api/webhook/${hook.id}`, { headers: as(user), json: { template: '{{.Nope' } });
  await call('POST', '/api/webhook/preview', { headers: as(user), json: { event: 'update' } });
  await call('POST', '/api/webhook/preview', { headers: as(user), json: { event: 'create', template: '{{if}}' } });
  await call('PUT', `/api/post/${second.id}`, { headers: as(user), json: { text: 'fires an update' } });
  await receiver.waitFor(1);
  await app.services.webhookDispatcher.whenIdle();
  await call('GET', `/api/webhook/${hook.id}/deliveries`, { headers: as(user) });
  await call('POST', `/api/webhook/${hook.id}/reactivate`, { headers: as(user) });
  for (let i = 0; i < 10; i++)
    await call('POST', '/api/webhook', {
      headers: as(user),
      json: { url: receiver.url, secret: `s${i}`, events: ['delete'] },
    }); // the last is 409
  await call('DELETE', `/api/webhook/${hook.id}`, { headers: as(user) });
  await call('DELETE', `/api/webhook/${hook.id}`, { headers: as(user) });

  // media
  await call('GET', `/media/${created.image}`);
  await call('GET', `/media/${created.image}`, { headers: { Range: 'bytes=0-9' } });
  await call('GET', `/media/${created.image}`, { headers: { Range: 'bytes=999999999-' } });
  const etag = (await app.request(`/media/${created.image}`)).headers.get('etag')!;
  await call('GET', `/media/${created.image}`, { headers: { 'If-None-Match': etag } });
  await call('GET', new URL(created.thumbnails['320']).pathname);
  await call('GET', '/media/../../etc/passwd');
  await call('GET', '/media/01900000-0000-7000-8000-000000000000.png');

  // moderation (docs/decisions.md §15): a request filed, listed, dismissed, revoked, approved; a merge
  const third = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({ image: await randomImage(9104), metadata: { tags: ['c'] } }),
    }),
  );
  const fourth = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({ image: await randomImage(9105), metadata: { tags: ['d'] } }),
    }),
  );
  const fileRequest = async (id: string, reason: string) =>
    json(
      await app.request(`/api/post/${id}/deletion-request`, {
        method: 'POST',
        headers: { ...as(weak), 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason }),
      }),
    );
  const req = await fileRequest(third.id, 'contract');
  await call('POST', `/api/post/${third.id}/deletion-request`, { headers: as(weak), json: { reason: 'again' } }); // 409
  await call('POST', `/api/post/${third.id}/deletion-request`, { headers: as(weak), json: {} }); // 400
  await call('GET', '/api/deletion-request?status=pending', { headers: as(user) });
  await call('POST', `/api/deletion-request/${req.id}/dismiss`, { headers: as(user) });
  await call('POST', `/api/deletion-request/${req.id}/approve`, { headers: as(weak) }); // 403
  await call('POST', `/api/deletion-request/${req.id}/approve`, { headers: as(user) }); // 409
  const revokable = await fileRequest(third.id, 'revoked');
  await call('POST', `/api/deletion-request/${revokable.id}/revoke`, { headers: as(weak) });
  const approvable = await fileRequest(fourth.id, 'merged away');
  await call('POST', '/api/deletion-request/999999/approve', { headers: as(user) }); // 404
  await call('POST', `/api/post/${third.id}/merge`, { headers: as(user), json: { into: third.id } }); // 400
  await call('POST', `/api/post/${fourth.id}/merge`, { headers: as(user), json: { into: third.id } });
  await call('POST', `/api/deletion-request/${approvable.id}/approve`, { headers: as(user) }); // 409: moot by the merge
  const last = await fileRequest(third.id, 'approved');
  await call('POST', `/api/deletion-request/${last.id}/approve`, { headers: as(user) });

  // deleting last: the weak user may not, the owner may
  await call('DELETE', `/api/post/${second.id}`, { headers: as(weak) });
  await call('DELETE', `/api/post/${second.id}`, { headers: as(user) });
  await call('DELETE', `/api/post/${second.id}`, { headers: as(user) });

  // operations
  for (const p of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/openapi-3.0.json', '/docs'])
    await call('GET', p);

  // people (docs/decisions.md §14)
  await call('POST', '/api/account/register', {
    json: { username: `joiner_${process.pid}`, password: 'correct horse battery' },
  });
  await call('POST', '/api/account/register', { json: { username: 'x', password: 'y' } });
  const appKey = await json(
    await app.request('/api/account/keys', {
      method: 'POST',
      headers: { ...as(user), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bot', permission: 2 }),
    }),
  );
  await call('POST', '/api/account/keys', { headers: as(user), json: { name: 'greedy', permission: 0x800 } });
  await call('GET', '/api/account/keys', { headers: as(user) });
  await call('GET', '/api/account', { headers: { 'X-Access-Key': appKey.key } });
  await call('DELETE', `/api/account/keys/${appKey.id}`, { headers: as(user) });
  await call('GET', '/api/account/preferences', { headers: as(user) });
  await call('PUT', '/api/account/preferences', { headers: as(user), json: { ratings: ['none'] } });
  const kept = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({ image: await randomImage(9377), metadata: { text: 'favorite me' } }),
    }),
  );
  await call('PUT', `/api/post/${kept.id}/favorite`, { headers: as(user), json: { shortcut: 'fav' } });
  await call('PUT', `/api/post/${kept.id}/favorite`);
  await call('GET', '/api/account/favorites', { headers: as(user) });
  await call('POST', '/image/quick-search', { headers: as(user), json: { q: 'fa' } });
  await call('DELETE', `/api/post/${kept.id}/favorite`, { headers: as(user) });
  // the Danbooru read API (docs/decisions.md §20)
  const [first] = (await json(await app.request('/posts.json?limit=1'))) as { id: number }[];
  await call('GET', '/posts.json?tags=rating:g%20order:id&limit=2&page=b999999');
  await call('GET', '/posts.json?tags=nope:x');
  await call('GET', `/posts/${first.id}.json`);
  await call('GET', '/posts/999999999.json');
  await call('GET', '/counts/posts.json?tags=-rating:e');
  await call('GET', '/tags.json?search[name_matches]=*a*&search[order]=name');
  await call('GET', '/posts.atom?tags=~rating:q%20~rating:g');
  // conversation (docs/decisions.md §18): comments and votes, with their refusals
  const talker = await createUser(app, 0x4000);
  await call('POST', `/api/post/${kept.id}/comment`, { headers: as(weak), json: { body: 'no bit' } }); // 403
  await call('POST', `/api/post/${kept.id}/comment`, { headers: as(talker), json: { body: '  ' } }); // 400
  const said = await json(
    await app.request(`/api/post/${kept.id}/comment`, {
      method: 'POST',
      headers: { ...as(talker), 'Content-Type': 'application/json' },
      body: JSON.stringify({ body: 'first, see post #1' }),
    }),
  );
  await call('POST', `/api/post/${kept.id}/comment`, { headers: as(talker), json: { body: 'second' } });
  await call('GET', `/api/post/${kept.id}/comment`);
  await call('GET', '/api/post/00000000-0000-7000-8000-000000000000/comment'); // 404
  await call('GET', `/api/comment?author=${talker.name}&limit=5`);
  await call('GET', '/api/comment?limit=-1'); // 400
  await call('PATCH', `/api/comment/${said.id}`, { headers: as(talker), json: { body: 'first, edited' } });
  await call('PATCH', `/api/comment/${said.id}`, { headers: as(user), json: { body: 'not mine' } }); // 403
  await call('DELETE', `/api/comment/${said.id}`, { headers: as(weak) }); // 403
  await call('DELETE', `/api/comment/${said.id}`, { headers: as(talker) });
  await call('DELETE', `/api/comment/${said.id}`, { headers: as(talker) }); // 404
  await call('PUT', `/api/post/${kept.id}/vote`, { headers: as(talker), json: { value: 1 } });
  await call('PUT', `/api/post/${kept.id}/vote`, { headers: as(talker), json: { value: 2 } }); // 400
  await call('GET', `/api/post/${kept.id}/vote`, { headers: as(talker) });
  await call('DELETE', `/api/post/${kept.id}/vote`, { headers: as(talker) });
  await call('PUT', `/api/post/${kept.id}/vote`, { json: { value: -1 } }); // 401
  const admin = await createUser(app, 0x1);
  await call('GET', '/api/user?prefix=u', { headers: as(admin) });
  await call('GET', '/api/user', { headers: as(weak) });
  await call('PATCH', `/api/user/${weak.id}`, { headers: as(admin), json: { permission: 2 } });
  await call('DELETE', `/api/user/${weak.id}`, { headers: as(admin) });
  // the last super user: 409
  await call('PATCH', `/api/user/${admin.id}`, { headers: as(admin), json: { permission: 2 } });

  // organization (docs/decisions.md §19): pools, a post's pools and children, tag categories
  const child = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({
        image: await randomImage(9391),
        metadata: { parentId: kept.id, source: 'https://a.example/' },
      }),
    }),
  );
  const poolMade = await json(
    await app.request('/api/pool', {
      method: 'POST',
      headers: { ...as(user), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `contract ${user.id}`, postIds: [kept.id, child.id] }),
    }),
  );
  await call('GET', '/api/pool?prefix=contract');
  await call('GET', `/api/pool/${poolMade.id}`);
  await call('PATCH', `/api/pool/${poolMade.id}`, { headers: as(user), json: { postIds: [child.id, kept.id] } });
  await call('GET', `/api/post/${child.id}/pools`);
  await call('GET', `/api/post/${kept.id}/children`);
  // the Danbooru pools (docs/decisions.md §20), and posts with a parent, children and pools
  await call('GET', '/pools.json?search[name_matches]=contract_*');
  await call('GET', `/pools/${poolMade.id}.json`);
  await call('GET', '/pools/999999.json');
  await call('GET', `/posts.json?tags=pool:${poolMade.id}%20order:id`);
  await call('PUT', '/api/tag/contract_tag/category', { headers: as(admin), json: { category: 'artist' } });
  await call('DELETE', `/api/pool/${poolMade.id}`, { headers: as(user) });
  await call('GET', `/api/pool/${poolMade.id}/history`);

  // wiki pages and notes (docs/decisions.md §23)
  const noted = await json(
    await app.request('/api/post/', {
      method: 'POST',
      headers: as(user),
      body: uploadForm({ image: await randomImage(9392), metadata: { tags: ['contract_wiki'] } }),
    }),
  );
  await call('PUT', '/api/wiki/contract_wiki', { headers: as(user), json: { body: 'see [[contract_wiki]]' } });
  await call('PUT', '/api/wiki/contract_wiki', { headers: as(user), json: { body: 'again', version: 1 } });
  await call('PUT', '/api/wiki/contract_wiki', { headers: as(user), json: { body: 'stale', version: 1 } }); // 409
  await call('GET', '/api/wiki/contract_wiki');
  await call('GET', '/api/wiki?query=again');
  await call('GET', '/api/wiki/contract_wiki/history');
  await call('POST', '/api/wiki/contract_wiki/revert', { headers: as(user), json: { version: 1 } });
  await call('PUT', '/api/wiki/contract_wiki/lock', { headers: as(admin), json: { locked: true } });
  await call('PUT', '/api/wiki/contract_wiki', { headers: as(user), json: { body: 'locked' } }); // 403
  const note = await json(
    await app.request(`/api/post/${noted.id}/note`, {
      method: 'POST',
      headers: { ...as(user), 'Content-Type': 'application/json' },
      body: JSON.stringify({ x: 0, y: 0, width: 2, height: 2, body: 'a note' }),
    }),
  );
  await call('POST', `/api/post/${noted.id}/note`, {
    headers: as(user),
    json: { x: 0, y: 0, width: 99999, height: 1, body: 'x' },
  });
  await call('GET', `/api/post/${noted.id}/note`);
  await call('PATCH', `/api/note/${note.id}`, { headers: as(user), json: { x: 1, version: 1 } });
  await call('GET', `/api/note/${note.id}/history`);
  await call('POST', `/api/note/${note.id}/revert`, { headers: as(user), json: { version: 1 } });
  const [{ id: notedNumber }] = await json(await app.request('/posts.json?tags=contract_wiki'));
  await call('POST', `/api/post/${noted.id}/note`, {
    headers: as(user),
    json: { x: 0, y: 0, width: 1, height: 1, body: 'b' },
  });
  await call('GET', `/notes.json?search[post_id]=${notedNumber}`);
  await call('GET', '/notes.json');
  // docs/decisions.md §22: the comments `imgpost import --from` reads
  await call('POST', `/api/post/${noted.id}/comment`, { headers: as(user), json: { body: 'contract' } });
  await call('GET', `/comments.json?group_by=comment&search[post_id]=${notedNumber},1`);
  await call('GET', '/comments.json?search[post_id]=x');
  await call('GET', '/posts.json?tags=contract_wiki&only=notes,children,parent,uploader,artist_commentary,id');
  await call('GET', `/posts/${notedNumber}.json?only=notes,id,tag_string`);
  await call('GET', '/wiki_pages.json?search[title]=contract_wiki');
  await call('GET', '/wiki_pages.json');
  await call('GET', '/wiki_pages/contract_wiki.json');
  await call('GET', '/wiki_pages/no_such_page.json');
  await call('DELETE', `/api/note/${note.id}`, { headers: as(user) });

  // passkeys (docs/decisions.md §14): an IP address as PUBLIC_URL is 409; with a domain, a software authenticator
  // answers
  await call('POST', '/api/account/passkey/options', { headers: as(user) });
  const publicUrl = app.services.config.publicUrl;
  app.services.config.publicUrl = `http://localhost:${app.server.port}`;
  try {
    const authenticator = new SoftwareAuthenticator(app.services.config.publicUrl);
    const post = async (url: string, headers: Record<string, string>, body?: unknown) =>
      json(
        await app.request(url, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
    const created = authenticator.create(await post('/api/account/passkey/options', as(user)));
    const passkey = await post('/api/account/passkey', as(user), { ...created, name: 'contract' });
    await call('POST', '/api/account/passkey', { headers: as(user), json: created }); // replayed: 400
    await call('POST', '/api/account/passkey/login', {
      json: authenticator.get(await post('/api/account/passkey/login/options', {}, {})),
    });
    await call('POST', '/api/account/passkey/login', { json: { id: 'x' } });
    await call('GET', '/api/account/passkeys', { headers: as(user) });
    await call('GET', '/api/account/passkeys', { headers: { 'X-Access-Key': appKey.key } }); // revoked by now: 401
    await call('DELETE', `/api/account/passkeys/${passkey.id}`, { headers: as(user) });
    await call('DELETE', `/api/account/passkeys/${passkey.id}`, { headers: as(user) });
  } finally {
    app.services.config.publicUrl = publicUrl;
  }
}

test.serial('every response of a run over all endpoints matches the document', async (t) => {
  const user = await createUser(app, 0x2 | 0x4 | 0x2000);
  const weak = await createUser(app, 0);
  await representativeRun(user, weak);

  const report = checkRecordings(readRecordings([recordingFile(recordDir)]));
  t.is(report.violations.length, 0, formatViolations(report.violations));
  t.true(report.checked >= 70, `only ${report.checked} responses checked`);
  // The run is representative: every operation answered with success at least once.
  const withoutSuccess = OPERATIONS.filter(
    (op) => ![...(report.seen.get(op.operationId) ?? [])].some((s) => s < 300 || s === 304),
  );
  t.deepEqual(
    withoutSuccess.map((op) => op.operationId),
    [],
  );
  // And the documented error shapes were exercised too.
  const seen = (id: string, status: number) => report.seen.get(id)?.has(status) ?? false;
  for (const [id, status] of [
    ['login', 401],
    ['createPost', 409],
    ['createPost', 400],
    ['createPost', 403],
    ['createUploadUrl', 200],
    ['createUploadUrl', 400],
    ['createUploadUrl', 403],
    ['createUploadUrl', 409],
    ['listPosts', 400],
    ['getPost', 404],
    ['updatePost', 400],
    ['updatePost', 404],
    ['updatePost', 401],
    ['searchPosts', 400],
    ['similarPosts', 400],
    ['imageSearch', 400],
    ['createWebhook', 409],
    ['getWebhook', 404],
    ['listPostVersions', 400],
    ['listPostVersions', 404],
    ['revertPost', 400],
    ['revertPost', 403],
    ['revertPost', 404],
    ['listTags', 400],
    ['getTag', 404],
    ['getMedia', 206],
    ['getMedia', 416],
    ['getMedia', 404],
    ['addComment', 400],
    ['addComment', 403],
    ['listComments', 404],
    ['editComment', 403],
    ['deleteComment', 404],
    ['votePost', 400],
    ['votePost', 401],
  ] as const)
    t.true(seen(id, status), `${id} ${status} was not exercised`);
});

test('the whole-suite check reads every recording file, counts per operation and status, groups violations', (t) => {
  const dir = tempDir('imgpost-validate');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const line = (r: RecordedResponse) => `${JSON.stringify(r)}\n`;
  const ok: RecordedResponse = {
    method: 'GET',
    path: '/healthz',
    status: 200,
    contentType: 'application/json',
    kind: 'json',
    body: { status: 'ok' },
  };
  const bad: RecordedResponse = { ...ok, body: { status: 'fine' } };
  const unknown: RecordedResponse = { ...ok, path: '/nowhere', status: 404, body: { error: 'not found' } };
  fs.writeFileSync(recordingFile(dir, 1), line(ok) + line(ok));
  // A second process, killed in the middle of its last line.
  fs.writeFileSync(recordingFile(dir, 2), `${line(bad)}${line(bad)}${line(unknown)}{"method":"GE`);
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a recording');

  const { files, report, text } = validateDirectory(dir);
  t.is(files, 2);
  t.is(report.checked, 4);
  t.is(report.unmatched, 1);
  t.true(report.violations.length >= 2);
  t.regex(text, /4 responses checked .*2 recording files.*1 without a documented operation/);
  t.regex(text, /health\s+4\s+GET \/healthz\s+200×4/);
  t.regex(text, /getPost\s+0\s+.*\(not exercised\)/);
  t.regex(text, /1\s+GET 404 \/nowhere/);
  t.regex(text, /2× \(health\) -> 200: zod: status/, 'the same problem twice is one group');

  fs.rmSync(recordingFile(dir, 2));
  t.deepEqual(validateDirectory(dir).report.violations, []);
});

test('the check catches what it should: missing and extra fields, wrong types, undocumented statuses', async (t) => {
  const post = await (async () => {
    const u = await createUser(app, 0x2);
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: u.headers,
      body: uploadForm({ image: await randomImage(9200) }),
    });
    return (await res.json()) as Record<string, unknown>;
  })();
  const legacy: Record<string, unknown> = { ...post, uploader: null, uploaderId: null };
  const rec = (status: number, body: unknown, p = `/api/post/${post.id}`): RecordedResponse => ({
    method: 'GET',
    path: p,
    status,
    contentType: 'application/json',
    kind: 'json',
    body,
  });
  t.deepEqual(checkRecordings([rec(200, legacy)]).violations, [], 'a legacy post (uploader null) is valid');
  const { thumbnails: _dropped, ...noThumbs } = legacy;
  const cases: [string, RecordedResponse, RegExp][] = [
    ['missing field', rec(200, noThumbs), /thumbnails/],
    ['extra field', rec(200, { ...legacy, passwordHash: 'x' }), /passwordHash/],
    ['wrong type', rec(200, { ...legacy, uploaderId: 'one' }), /uploaderId/],
    ['bad nested value', rec(200, { ...legacy, tags: [{ id: 1 }] }), /name/],
    ['undocumented status', rec(418, {}), /not documented/],
    ['wrong content type', { ...rec(200, null), contentType: 'text/html', kind: 'text' }, /content type/],
  ];
  for (const [label, record, pattern] of cases) {
    const { violations } = checkRecordings([record]);
    t.true(violations.length > 0, label);
    t.regex(formatViolations(violations), pattern, label);
    // Body problems are found twice: by the zod schema and by the published JSON Schema.
    if (record.status === 200 && record.kind === 'json') {
      t.true(
        violations.some((v) => v.problem.startsWith('zod:')),
        `${label}: zod`,
      );
      t.true(
        violations.some((v) => v.problem.startsWith('document:')),
        `${label}: document`,
      );
    }
  }
});

test('the document is generated once and serves the same components every time', (t) => {
  t.is(openApiDocument().components, openApiDocument('http://elsewhere').components);
});
