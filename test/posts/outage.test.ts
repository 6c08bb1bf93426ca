import test from 'ava';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { startTestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { createUser } from '../helpers/users.ts';

const ES_URL = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('Elasticsearch down: upload 503 storing nothing, edits and deletes succeed and reach the index when it returns', async (t) => {
  const proxy = await startTcpProxy(Number(new URL(ES_URL).port));
  const app = await startTestApp({ ELASTICSEARCH_URL: proxy.url });
  const direct = createEsClient({ url: ES_URL, indexPrefix: 'unused' });
  t.teardown(async () => {
    await proxy.up().catch(() => {});
    await app.close();
    await proxy.close();
    await direct.close();
  });
  const user = await createUser(app, 0x2 | 0x4 | 0x2000);
  const send = async (seed: number) =>
    app.request('/api/post/', { method: 'POST', headers: user.headers, body: uploadForm({ image: await randomImage(seed), metadata: { text: 'before' } }) });

  const keep = await (await send(1)).json();
  const gone = await (await send(2)).json();
  const alias = app.services.postsIndex.alias;
  const doc = (id: string) => direct.get<{ text: string }>({ index: alias, id }, { ignore: [404] }).then((r) => r._source);
  t.is((await doc(keep.id))!.text, 'before');

  await proxy.down();
  const posts = app.services.db.prepare('SELECT count(*) FROM posts').pluck();
  const countBefore = posts.get();
  const refused = await send(3);
  t.is(refused.status, 503);
  t.regex((await refused.json()).error, /unavailable/);
  t.is(posts.get(), countBefore);
  t.is((await app.request('/readyz')).status, 503);

  const edit = await app.request(`/api/post/${keep.id}`, { method: 'PUT', headers: { ...user.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'edited while down' }) });
  t.is(edit.status, 200);
  t.is((await edit.json()).text, 'edited while down');
  t.is((await app.request(`/api/post/${gone.id}`, { method: 'DELETE', headers: user.headers })).status, 204);
  t.is((await doc(keep.id))!.text, 'before', 'the index has not seen the edit yet');

  await proxy.up();
  await eventually(async () => ((await doc(keep.id))?.text === 'edited while down' ? true : undefined));
  await eventually(async () => ((await doc(gone.id)) === undefined ? true : undefined));
  await eventually(async () => (app.services.outbox.backlog().count === 0 ? true : undefined));
  t.is((await send(4)).status, 201);
});
