/**
 * Elasticsearch goes away under a stream of edits and deletes (the test runs a node of its own, not
 * the shared one, and stops its process, then starts it again on the same data and port while the
 * service keeps running): writes still succeed (SQLite and the outbox), reads that need
 * the index answer 503 with a clear message and never 500, reads from SQLite keep working, and
 * once the index is back the relay catches up with no drift (every document equals what SQLite
 * says it should be, at the post's version; no document for a deleted post).
 */
import test from 'ava';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import { verify } from '../../src/search/verify.ts';
import { startTestApp } from '../helpers/app.ts';
import { startDedicatedEs } from '../helpers/dedicated-es.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { eventually } from '../webhooks/receiver.ts';

const POSTS = 24;
// A fixed number of steps, not a time window: on a slow box a window held too few writes to check.
const STEPS = 3;
// While Elasticsearch refuses connections each write waits for the client's one retry (1-2 s of
// backoff in @elastic/transport) before the relay takes the change over: hence many writers.
const WRITERS = 8;

test('edits and deletes during an outage; 503 (never 500) for index reads; no drift after it', async (t) => {
  // Two node starts (15-30 s each on a busy 2-core box) on top of the test itself.
  t.timeout(240_000);
  const es = await startDedicatedEs({ log: (line) => t.log(line) });
  // Teardowns run last-registered first: the service closes before its node goes away for good.
  t.teardown(() => es.close());
  const app = await startTestApp({
    ELASTICSEARCH_URL: es.url,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
  });
  const direct = createEsClient({ url: es.url, indexPrefix: 'unused' });
  t.teardown(async () => {
    await app.close();
    await direct.close();
  });
  const user = await createUser(app, 0x2 | 0x4 | 0x2000);
  const json = { ...user.headers, 'Content-Type': 'application/json' };
  const ids: string[] = [];
  for (let i = 0; i < POSTS; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(6200 + i), metadata: { text: `before ${i}`, tags: ['outage'] } }),
    });
    t.is(res.status, 201);
    ids.push((await res.json()).id);
  }

  await es.stop();
  await t.throwsAsync(() => direct.cluster.health(), undefined, 'the node is really down');
  const writes = { edits: 0, deletes: 0, failed: [] as string[] };
  const reads: { what: string; status: number; body: string }[] = [];
  // Writers: edits with new text, tags and rating; half of them delete a post every third step.
  const alive = [...ids];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let step = 0; step < STEPS; step++) {
        if (w % 2 === 0 && step % 3 === 1 && alive.length > POSTS / 2) {
          const id = alive.splice((w * 5 + step) % alive.length, 1)[0];
          const res = await app.request(`/api/post/${id}`, { method: 'DELETE', headers: user.headers });
          if (res.status === 204) writes.deletes++;
          else writes.failed.push(`DELETE ${res.status}`);
        } else {
          const id = alive[(w * 3 + step) % alive.length];
          const body = {
            text: `down ${w}.${step}`,
            tags: [`w${w}`, `s${step % 5}`],
            rating: (['none', 'moderate', 'violent'] as const)[step % 3],
          };
          const res = await app.request(`/api/post/${id}`, {
            method: step % 2 ? 'PATCH' : 'PUT',
            headers: json,
            body: JSON.stringify(body),
          });
          if (res.status === 200) writes.edits++;
          // A post another writer deleted in the meantime is a fair 404.
          else if (res.status !== 404) writes.failed.push(`edit ${res.status} ${await res.text()}`);
        }
      }
    }),
  );
  t.deepEqual(writes.failed, [], app.logs.filter((l) => /"level":"error"/.test(l)).join('\n'));
  t.true(writes.edits >= 10, `${writes.edits} edits`);
  t.true(writes.deletes >= 2, `${writes.deletes} deletes`);
  t.log(
    `while down: ${writes.edits} edits and ${writes.deletes} deletes acknowledged; outbox backlog ${app.services.outbox.backlog().count}`,
  );
  t.true(app.services.outbox.backlog().count > 0);

  // Index reads: 503 with a message that says what is wrong.
  const probe = async (what: string, path: string, init: RequestInit) => {
    const res = await app.request(path, init);
    reads.push({ what, status: res.status, body: await res.text() });
  };
  await probe('post search', '/api/post/search', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ filter: [{ type: 'text', op: 'contains', value: 'down' }] }),
  });
  await probe('post search, no filter', '/api/post/search?offset=20000', { method: 'POST', headers: json, body: '{}' });
  await probe('image search', '/image/search', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ conditions: [{ type: 'tagInclude', value: 'outage' }] }),
  });
  await probe('similar', '/api/post/similar', { method: 'POST', body: uploadForm({ image: await randomImage(6200) }) });
  await probe('upload', '/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(6999) }),
  });
  for (const r of reads) {
    t.is(r.status, 503, `${r.what}: ${r.status} ${r.body}`);
    t.regex(JSON.parse(r.body).error, /unavailable|try again/i, r.what);
  }
  t.log(reads.map((r) => `${r.what}: ${r.status} ${r.body}`).join('\n'));
  // Reads served from SQLite carry on.
  t.is((await app.request('/api/post/')).status, 200);
  t.is((await app.request(`/api/post/${alive[0]}`)).status, 200);
  t.is((await app.request('/readyz')).status, 503);
  t.false(
    app.logs.some((l) => /"status":5\d\d/.test(l) && !/"status":503/.test(l)),
    'no 5xx other than 503 in the request log',
  );
  t.false(
    app.logs.some((l) => /"level":"error"/.test(l)),
    'no error logged',
  );

  // Started again on the same data dir and port; the service is not restarted.
  await es.start();
  const caughtUpIn = performance.now();
  await eventually(() => app.services.outbox.backlog().count === 0, 60_000, 200);
  t.log(`relay caught up ${((performance.now() - caughtUpIn) / 1000).toFixed(1)} s after Elasticsearch came back`);

  // No drift: every document is exactly what SQLite says, at the post's version; nothing else is there.
  const alias = app.services.postsIndex.alias;
  await direct.indices.refresh({ index: alias });
  const res = await direct.search<Record<string, unknown>>({
    index: alias,
    size: 1000,
    version: true,
    query: { match_all: {} },
  });
  const docs = new Map(res.hits.hits.map((h) => [h._id!, h]));
  const posts = [...app.services.postRepository.batches(1000)].flat();
  t.is(docs.size, posts.length, 'one document per post');
  for (const post of posts) {
    const doc = docs.get(post.id);
    t.truthy(doc, `post ${post.id} is missing from the index`);
    if (!doc) continue;
    t.deepEqual(doc._source, toPostDocument(post) as unknown as Record<string, unknown>, `document of ${post.id}`);
    t.is(doc._version, post.version, `version of ${post.id}`);
  }
  const deleted = ids.filter((id) => !posts.some((p) => p.id === id));
  t.is(deleted.length, writes.deletes);
  for (const id of deleted) t.false(docs.has(id), `deleted post ${id} is still indexed`);
  t.true((await verify(app.services)).clean, 'imgpost verify agrees');

  // And the index serves again.
  const after = await app.request('/api/post/search', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ filter: [{ type: 'tag', op: 'include', value: 'outage' }] }),
  });
  t.is(after.status, 200);
});
