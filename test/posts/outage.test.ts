/**
 * Elasticsearch goes away while the service keeps running. The outage is real: the file runs a node
 * of its own (never the shared one), stops its process and starts it again on the same data and
 * port. Both tests use that one node and share one outage (sharedOutage in
 * test/helpers/dedicated-es.ts): it stops once both have done their work while it was up, and starts
 * again once both have done theirs while it was down, so the file pays for two node starts, not four.
 *  - uploads answer 503 storing nothing, edits and deletes succeed (a delete racing an edit still
 *    waiting on the index too) and reach the index when it returns;
 *  - under a stream of edits and deletes, writes still succeed (SQLite and the outbox), reads that
 *    need the index answer 503 with a clear message and never 500, reads from SQLite keep working, and
 *    once the index is back the relay catches up with no drift (every document equals what SQLite
 *    says it should be, at the post's version; no document for a deleted post).
 * The apps' relays back off to 1 s at most (RELAY_MAX_BACKOFF_MS) rather than 15 s: they catch up
 * soon after the node is back instead of sleeping through its return.
 */
import test from 'ava';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { keptSource, toPostDocument } from '../../src/elasticsearch/post-document.ts';
import { verify } from '../../src/search/verify.ts';
import { startTestApp } from '../helpers/app.ts';
import { sharedOutage, startDedicatedEs, type DedicatedEs, type SharedOutage } from '../helpers/dedicated-es.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { eventually as until } from '../webhooks/receiver.ts';

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const UPLOADS =
  'Elasticsearch down: upload 503 storing nothing, edits and deletes succeed and reach the index when it returns';
const STREAM = 'edits and deletes during an outage; 503 (never 500) for index reads; no drift after it';
const RELAY = { RELAY_MAX_BACKOFF_MS: '1000' };

let es: DedicatedEs | undefined;
let outage: SharedOutage | undefined;
test.before(async (t) => {
  // A node start is 10-30 s on a busy 2-core box.
  t.timeout(120_000);
  es = await startDedicatedEs({ log: (line) => t.log(line) });
  outage = sharedOutage(es, [UPLOADS, STREAM]);
});
test.after.always(() => es?.close());

/** The file's node and its outage; the caller leaves the outage when it ends, however it ends. */
function node(t: { title: string; teardown(fn: () => void): void }): { es: DedicatedEs; outage: SharedOutage } {
  if (!es || !outage) throw new Error('the dedicated node did not start');
  const o = outage;
  t.teardown(() => o.leave(t.title));
  return { es, outage: o };
}

const POSTS = 24;
// A fixed number of steps, not a time window: on a slow box a window held too few writes to check.
const STEPS = 3;
// While Elasticsearch refuses connections each write waits for the client's one retry (1-2 s of
// backoff in @elastic/transport) before the relay takes the change over: hence many writers.
const WRITERS = 8;

test(UPLOADS, async (t) => {
  // A node start (10-30 s on a busy 2-core box) on top of the test itself, and the other test's pace.
  t.timeout(240_000);
  const { es, outage } = node(t);
  const app = await startTestApp({ ELASTICSEARCH_URL: es.url, ...RELAY });
  const direct = createEsClient({ url: es.url, indexPrefix: 'unused' });
  t.teardown(async () => {
    await app.close();
    await direct.close();
  });
  const user = await createUser(app, 0x2 | 0x4 | 0x2000);
  const send = async (seed: number) =>
    app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(seed), metadata: { text: 'before' } }),
    });

  const keep = await (await send(1)).json();
  const gone = await (await send(2)).json();
  const raced = await (await send(5)).json();
  const alias = app.services.postsIndex.alias;
  const doc = (id: string) =>
    direct.get<{ text: string }>({ index: alias, id }, { ignore: [404] }).then((r) => r._source);
  t.is((await doc(keep.id))!.text, 'before');
  const indexBehindAlias = async () => Object.keys(await direct.indices.getAlias({ name: alias }));
  const indexBefore = await indexBehindAlias();

  await outage.down(t.title);
  await t.throwsAsync(() => direct.cluster.health(), undefined, 'the node is really down');
  const posts = app.services.db.prepare('SELECT count(*) FROM posts').pluck();
  const countBefore = posts.get();
  const refused = await send(3);
  t.is(refused.status, 503);
  t.regex((await refused.json()).error, /unavailable/);
  t.is(posts.get(), countBefore);
  t.is((await app.request('/readyz')).status, 503);

  const edit = await app.request(`/api/post/${keep.id}`, {
    method: 'PUT',
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'edited while down' }),
  });
  t.is(edit.status, 200);
  t.is((await edit.json()).text, 'edited while down');
  t.is((await app.request(`/api/post/${gone.id}`, { method: 'DELETE', headers: user.headers })).status, 204);
  // An edit still waiting on the index when a delete of the same post commits: both succeed.
  const racedEdit = app.request(`/api/post/${raced.id}`, {
    method: 'PUT',
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'edited, then deleted' }),
  });
  // The delete goes in once the edit has committed (it then waits for the index), not after a guess.
  await eventually(
    async () => (app.services.postRepository.getById(raced.id)?.text === 'edited, then deleted' ? true : undefined),
    10_000,
  );
  t.is((await app.request(`/api/post/${raced.id}`, { method: 'DELETE', headers: user.headers })).status, 204);
  const racedAnswer = await racedEdit;
  t.is(racedAnswer.status, 200);
  t.is((await racedAnswer.json()).text, 'edited, then deleted');
  t.true(app.services.outbox.backlog().count >= 4, 'the edits and the deletes wait in the outbox for the index');

  // Started again on the same data dir and port; the service is not restarted.
  await outage.up(t.title);
  t.deepEqual(await indexBehindAlias(), indexBefore, 'the restarted node kept its data');
  await eventually(async () => ((await doc(keep.id))?.text === 'edited while down' ? true : undefined));
  await eventually(async () => ((await doc(gone.id)) === undefined ? true : undefined));
  await eventually(async () => ((await doc(raced.id)) === undefined ? true : undefined));
  await eventually(async () => (app.services.outbox.backlog().count === 0 ? true : undefined));
  t.is((await send(4)).status, 201);
});

test(STREAM, async (t) => {
  // A node start (10-30 s on a busy 2-core box) on top of the test itself, and the other test's pace.
  t.timeout(240_000);
  const { es, outage } = node(t);
  const app = await startTestApp({
    ELASTICSEARCH_URL: es.url,
    ...RELAY,
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

  await outage.down(t.title);
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
  // The one error an outage may log is the cluster watcher's alert for the operator (src/health/cluster-watcher.ts).
  t.false(
    app.logs.some((l) => /"level":"error"/.test(l) && !/elasticsearch cluster degraded/.test(l)),
    "no error logged but the cluster watcher's alert",
  );

  // Started again on the same data dir and port; the service is not restarted.
  await outage.up(t.title);
  const caughtUpIn = performance.now();
  await until(() => app.services.outbox.backlog().count === 0, 60_000, 200);
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
    t.deepEqual(
      doc._source,
      keptSource(toPostDocument(post) as unknown as Record<string, unknown>),
      `document of ${post.id}`,
    );
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
