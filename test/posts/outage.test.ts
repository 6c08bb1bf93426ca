import test from 'ava';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { startTestApp } from '../helpers/app.ts';
import { startDedicatedEs } from '../helpers/dedicated-es.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The outage is real: the test runs its own Elasticsearch node (not the shared one), stops its
// process and starts it again on the same data, while the service keeps running throughout.
test('Elasticsearch down: upload 503 storing nothing, edits and deletes succeed and reach the index when it returns', async (t) => {
  // Two node starts (15-30 s each on a busy 2-core box) on top of the test itself.
  t.timeout(240_000);
  const es = await startDedicatedEs({ log: (line) => t.log(line) });
  // Teardowns run last-registered first: the service closes before its node goes away for good.
  t.teardown(() => es.close());
  const app = await startTestApp({ ELASTICSEARCH_URL: es.url });
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

  await es.stop();
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
  await es.start();
  t.deepEqual(await indexBehindAlias(), indexBefore, 'the restarted node kept its data');
  await eventually(async () => ((await doc(keep.id))?.text === 'edited while down' ? true : undefined));
  await eventually(async () => ((await doc(gone.id)) === undefined ? true : undefined));
  await eventually(async () => ((await doc(raced.id)) === undefined ? true : undefined));
  await eventually(async () => (app.services.outbox.backlog().count === 0 ? true : undefined));
  t.is((await send(4)).status, 201);
});
