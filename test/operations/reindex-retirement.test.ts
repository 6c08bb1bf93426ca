/**
 * `imgpost reindex` returns right after its alias swap; the previous index is retired later
 * (src/search/retirement.ts), by the server process's loop. As an operator runs them (the CLI and the
 * server as child processes): without a server the previous index waits, recorded; a server retires
 * it within seconds; a server killed (-9) between closing the previous index and deleting it leaves
 * the deletion to the next start; uploads made meanwhile are all searchable and `imgpost verify` is clean.
 */
import fs from 'node:fs';
import test from 'ava';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { openDatabase } from '../../src/db/sqlite.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { isolatedEnv } from '../backup/env.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { cli, cliUser, ES_URL, startChild, type ChildServer } from '../reliability/child-server.ts';

const POSTS = 300;
/** Closing waits a second after the swap, deleting three more: well inside this. */
const RETIRED_WITHIN_MS = 30_000;

test('the previous index is retired by the server after reindex returns, and after a kill -9 by the next start', async (t) => {
  t.timeout(300_000);
  const env = await isolatedEnv(t, 'reindex-retirement');
  fs.mkdirSync(env.DATA_DIR);
  const db = openDatabase(env.DATA_DIR);
  seedPosts(db, { count: POSTS, seed: 4141, tags: 20, users: 2, clusters: 0 });
  db.close();
  const es = createEsClient({ url: ES_URL, indexPrefix: env.ELASTICSEARCH_INDEX_PREFIX });
  t.teardown(() => es.close());
  const alias = `${env.ELASTICSEARCH_INDEX_PREFIX}-posts`;
  let server: ChildServer | undefined;
  t.teardown(() => server?.stop());

  /** open or closed: what the retirement has done so far (`gone` once deleted) */
  const state = async (index: string): Promise<'open' | 'close' | 'gone'> => {
    const rows = await es.cat.indices(
      { index, format: 'json', h: 'status', expand_wildcards: 'all' },
      { ignore: [404] },
    );
    const status = Array.isArray(rows) ? rows[0]?.status : undefined;
    return status === 'open' || status === 'close' ? status : 'gone';
  };
  const waitFor = async (what: string, ok: () => Promise<boolean>, withinMs = RETIRED_WITHIN_MS) => {
    const deadline = Date.now() + withinMs;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const reindex = async () => {
    const r = await cli(['reindex', '--json'], env);
    t.is(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { index: string; previous: string[]; posts: number };
  };
  const concrete = async () =>
    Object.keys(await es.indices.get({ index: `${alias}-v*`, expand_wildcards: 'all' })).sort();

  // Without a server: the index the first start would have made is replaced and waits, recorded.
  const first = await reindex();
  t.is(first.posts, POSTS);
  t.is(first.previous.length, 1);
  const [v0] = first.previous;
  t.is(await state(v0), 'open', 'nothing retires it while no server runs');

  // A server retires it.
  server = await startChild(env);
  await waitFor(`${v0} deleted by the server`, async () => (await state(v0)) === 'gone');
  t.deepEqual(await concrete(), [first.index]);

  // Uploads all along, so writes meet the swap, the closed previous index and the kill.
  const key = await cliUser(env, 'uploader', 0x2);
  const uploaded: string[] = [];
  const refused: string[] = [];
  let uploading = true;
  let seed = 9_000;
  const uploads = (async () => {
    while (uploading) {
      const url = server!.url;
      const res = await fetch(`${url}/api/post/`, {
        method: 'POST',
        headers: { 'X-Access-Key': key },
        body: uploadForm({ image: await randomImage(seed++), metadata: { tags: ['during_retirement'] } }),
      }).catch(() => undefined);
      // Only while the server is down (killed, restarting) does a request get no answer.
      if (!res) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const body = (await res.json()) as { id?: string };
      if (res.status === 201) uploaded.push(body.id!);
      else refused.push(`${res.status} ${JSON.stringify(body)}`);
    }
  })();

  // With the server running: it closes the previous index; killed before deleting it, ...
  const second = await reindex();
  t.deepEqual(second.previous, [first.index]);
  const v1 = first.index;
  await waitFor(`${v1} closed by the server`, async () => (await state(v1)) !== 'open');
  await server.kill9();
  t.is(await state(v1), 'close', 'killed after the close, before the delete');

  // ... the next start deletes it.
  server = await startChild(env);
  await waitFor(`${v1} deleted after the restart`, async () => (await state(v1)) === 'gone');
  t.deepEqual(await concrete(), [second.index]);
  t.deepEqual(
    Object.keys(await es.indices.getAlias({ name: alias })),
    [second.index],
    'the alias names the new index alone',
  );

  await waitFor('a few uploads after the restart', async () => uploaded.length >= 3);
  uploading = false;
  await uploads;
  t.deepEqual(refused, []);
  const found = await fetch(`${server.url}/api/post/search?limit=1000`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ filter: [{ type: 'tag', op: 'include', value: 'during_retirement' }] }),
  }).then((r) => r.json() as Promise<{ count: number; data: { id: string }[] }>);
  // A request the kill cut off may have committed too: every acknowledged upload is there, maybe more.
  const ids = new Set(found.data.map((p) => p.id));
  t.true(
    uploaded.every((id) => ids.has(id)),
    'every acknowledged upload is searchable',
  );

  const verified = await cli(['verify', '--json'], env);
  t.is(verified.code, 0, verified.stderr);
  const summary = JSON.parse(verified.stdout);
  t.like(summary, { index: second.index, clean: true });
  t.is(summary.documents, summary.posts);
  t.true(summary.posts >= POSTS + uploaded.length);
});
