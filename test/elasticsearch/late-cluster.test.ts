/**
 * A server started before its Elasticsearch answers (a cluster still forming, say): it starts, is not
 * ready, and once the node answers its watcher creates the posts index, readiness turns 200 and
 * uploads work, without a restart. Runs a node of the test's own (never the shared one), started
 * only after the server.
 */
import fs from 'node:fs';
import test from 'ava';
import { startManagedNode, stopManagedNode } from '../../src/dev-services/elasticsearch/managed-node.ts';
import { tempDir, uniquePrefix } from '../helpers/app.ts';
import { reserveNodeSlot } from '../helpers/dedicated-es.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { cliUser, freePort, startChild } from '../reliability/child-server.ts';
import { eventually } from '../webhooks/receiver.ts';

test('the posts index is created once Elasticsearch answers after the server started', async (t) => {
  t.timeout(240_000);
  const slot = await reserveNodeSlot();
  const node = { nodeDir: slot.dir, port: slot.port, heap: '320m' };
  t.teardown(async () => {
    await stopManagedNode(node).catch(() => {});
    slot.release();
  });
  const dataDir = tempDir('imgpost-late');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ELASTICSEARCH_URL: `http://127.0.0.1:${slot.port}`,
    ELASTICSEARCH_INDEX_PREFIX: uniquePrefix(),
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    HASH_WORKERS: '1',
  };
  const auth = { 'X-Access-Key': await cliUser(env, 'lateuser', 0x2 | 0x4 | 0x2000) };
  const server = await startChild(env);
  t.teardown(() => server.stop());

  const ready = await fetch(`${server.url}/readyz`);
  t.is(ready.status, 503);
  t.like(await ready.json(), { elasticsearch: 'down', cluster: 'unreachable' });
  await eventually(() => /the posts index cannot serve/.test(server.output()), 15_000, 100);

  await startManagedNode({ ...node, log: (line) => t.log(line) });
  await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 60_000, 250);
  t.regex(server.output(), /created the posts index, which did not exist at start-up/);
  const up = await fetch(`${server.url}/api/post/`, {
    method: 'POST',
    headers: auth,
    body: uploadForm({ image: await randomImage(77_001), metadata: { text: 'late', tags: ['late'] } }),
  });
  t.is(up.status, 201, await up.clone().text());
  const found = await fetch(`${server.url}/api/post/search`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ filter: [{ type: 'tag', op: 'include', value: 'late' }] }),
  });
  t.is(found.status, 200);
  t.is((await found.json()).count, 1);
});
