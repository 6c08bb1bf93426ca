/**
 * The service on a real three-node Elasticsearch cluster (nodes of the test's own: managed-cluster.ts
 * through test/helpers/es-cluster.ts; the shared node is never touched), with the server and the CLI
 * as real processes:
 *  - under a stream of uploads, edits, deletes and searches, the elected master, made to hold the
 *    posts index's primary, is killed with SIGKILL and later started again: searches keep answering 200, no request
 *    waits as long as the client's time-out, /readyz stays 200 and reports the cluster's status, the
 *    log says when the cluster degraded and recovered, and once it is green every acknowledged write
 *    is in the index (`imgpost verify` agrees);
 *  - `imgpost reindex` swaps the alias to an index with ELASTICSEARCH_REPLICAS applied;
 *  - a server started before its cluster answers (started here before the cluster's nodes, which
 *    then form the cluster): it starts, is not ready, and once the cluster answers its watcher creates
 *    the posts index, readiness turns 200 and uploads work, without a restart. It runs first and is
 *    gone (server and indices) before the node is killed.
 * The servers' relays back off to 1 s at most (RELAY_MAX_BACKOFF_MS) rather than 15 s.
 */
import fs from 'node:fs';
import test from 'ava';
import { createEsClient, type EsClient } from '../../src/elasticsearch/client.ts';
import { tempDir, uniquePrefix } from '../helpers/app.ts';
import { startEsCluster, type EsCluster } from '../helpers/es-cluster.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { cli, cliUser, freePort, startChild, type ChildServer } from '../reliability/child-server.ts';
import { eventually } from '../webhooks/receiver.ts';

// What a client of the service waits at most. Every request must answer well within it: a write
// to a primary that just died waits at most the bulk time-out (5 s) before the relay takes it over.
const CLIENT_TIMEOUT_MS = 10_000;
const WORKERS = 4;
const SEED_PER_WORKER = 4;

interface Ctx {
  cluster: EsCluster;
  server: ChildServer;
  env: Record<string, string>;
  es: EsClient;
  alias: string;
  key: string;
  dataDir: string;
}
let ctx: Ctx | undefined;
const setupError: unknown[] = [];
// What the set-up got to start, for the clean-up even when a later step failed.
const started: { cluster?: EsCluster; server?: ChildServer; dataDir?: string } = {};

const RELAY = { RELAY_MAX_BACKOFF_MS: '1000' };
const PERMISSIONS = String(0x2 | 0x4 | 0x2000);

/** The server started before the cluster: what it answered then, and how to reach it. */
interface Late {
  server: ChildServer;
  env: Record<string, string>;
  key: string;
  firstReady: { status: number; body: unknown };
  dataDir: string;
}
let late: Late | undefined;
const lateError: unknown[] = [];

/** Starts a server on the cluster's addresses while no node runs yet, and notes what it answers. */
async function startLate(url: string): Promise<void> {
  const dataDir = tempDir('imgpost-late');
  const env = {
    ELASTICSEARCH_URL: url,
    ELASTICSEARCH_INDEX_PREFIX: uniquePrefix(),
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    HASH_WORKERS: '1',
    ...RELAY,
  };
  let server: ChildServer | undefined;
  try {
    const added = await cli(
      ['user', 'add', '--name', 'lateuser', '--password', 'correct horse battery', '--permission', PERMISSIONS],
      env,
    );
    if (added.code !== 0) throw new Error(`user add failed: ${added.stderr}`);
    server = await startChild(env);
    const ready = await fetch(`${server.url}/readyz`);
    const firstReady = { status: ready.status, body: await ready.json() };
    await eventually(() => /the posts index cannot serve/.test(server!.output()), 15_000, 100);
    late = { server, env, key: JSON.parse(added.stdout).accessKey, firstReady, dataDir };
  } catch (err) {
    // The cluster tests go on without it; its own test reports why.
    lateError.push(err);
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function stopLate(es?: EsClient): Promise<void> {
  const l = late;
  late = undefined;
  if (!l) return;
  await l.server.stop();
  await es?.indices
    .delete({ index: `${l.env.ELASTICSEARCH_INDEX_PREFIX}-*`, expand_wildcards: 'all' }, { ignore: [404] })
    .catch(() => {});
  fs.rmSync(l.dataDir, { recursive: true, force: true });
}

test.before(async (t) => {
  // Three JVMs starting together on two shared cores.
  t.timeout(300_000);
  try {
    const cluster = (started.cluster = await startEsCluster({
      size: 3,
      log: (line) => t.log(line),
      beforeStart: startLate,
    }));
    const dataDir = (started.dataDir = tempDir('imgpost-cluster'));
    const prefix = uniquePrefix();
    const env = {
      ELASTICSEARCH_URL: cluster.url,
      ELASTICSEARCH_INDEX_PREFIX: prefix,
      ELASTICSEARCH_REPLICAS: '0-1',
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      HASH_WORKERS: '1',
      RATE_LIMIT_WRITES_PER_MINUTE: '0',
      RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
      ...RELAY,
    };
    const key = await cliUser(env, 'clusteruser', 0x2 | 0x4 | 0x2000);
    const server = (started.server = await startChild(env));
    ctx = {
      cluster,
      server,
      env,
      es: createEsClient({ url: cluster.url, indexPrefix: prefix }),
      alias: `${prefix}-posts`,
      key,
      dataDir,
    };
  } catch (err) {
    setupError.push(err);
  }
});

test.after.always(async () => {
  await stopLate(ctx?.es);
  await started.server?.stop();
  await ctx?.es.close();
  await started.cluster?.close();
  if (started.dataDir) fs.rmSync(started.dataDir, { recursive: true, force: true });
});

function setup(t: { fail(msg: string): void }): Ctx | undefined {
  if (!ctx) t.fail(`setup failed: ${setupError.map((e) => (e as Error).stack ?? String(e)).join('\n')}`);
  return ctx;
}

/** Relocates the posts index's shard copies so that the elected master holds the primary. */
async function primaryOnMaster(t: { log(...s: string[]): void }, es: EsClient, alias: string): Promise<void> {
  const master = (await es.cat.master({ format: 'json' }))[0]!.node!;
  const [index] = Object.keys(await es.indices.getAlias({ name: alias }));
  const copies = await es.cat.shards({ index, format: 'json' });
  const primary = copies.find((s) => s.prirep === 'p')!.node!;
  const replica = copies.find((s) => s.prirep === 'r')?.node;
  if (primary === master) return;
  const nodes = (await es.cat.nodes({ format: 'json', h: 'name' })).map((n) => n.name!);
  const move = async (from: string, to: string) => {
    await es.cluster.reroute({ commands: [{ move: { index, shard: 0, from_node: from, to_node: to } }] });
    await es.cluster.health({ index, wait_for_status: 'green', wait_for_no_relocating_shards: true, timeout: '60s' });
  };
  // A node holds one copy at most: a replica on the master first moves to the node with none.
  if (replica === master) await move(master, nodes.find((n) => n !== master && n !== primary)!);
  await move(primary, master);
  t.log(`moved the primary of ${index} from ${primary} to the elected master ${master}`);
}

test.serial('the posts index is created once Elasticsearch answers after the server started', async (t) => {
  t.timeout(120_000);
  const c = setup(t);
  if (!c) return;
  const l = late;
  if (!l) {
    t.fail(`the late server did not start: ${lateError.map((e) => (e as Error).stack ?? String(e)).join('\n')}`);
    return;
  }
  t.teardown(() => stopLate(c.es));
  t.is(l.firstReady.status, 503);
  t.like(l.firstReady.body, { elasticsearch: 'down', cluster: 'unreachable' });
  // The watcher looks every 5 s; readiness may turn 200 a moment before its line reaches the log.
  await eventually(async () => (await fetch(`${l.server.url}/readyz`)).status === 200, 60_000, 250);
  await eventually(
    () => /created the posts index, which did not exist at start-up/.test(l.server.output()),
    15_000,
    100,
  );
  const auth = { 'X-Access-Key': l.key };
  const up = await fetch(`${l.server.url}/api/post/`, {
    method: 'POST',
    headers: auth,
    body: uploadForm({ image: await randomImage(77_001), metadata: { text: 'late', tags: ['late'] } }),
  });
  t.is(up.status, 201, await up.clone().text());
  const found = await fetch(`${l.server.url}/api/post/search`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ filter: [{ type: 'tag', op: 'include', value: 'late' }] }),
  });
  t.is(found.status, 200);
  t.is((await found.json()).count, 1);
});

interface Call {
  kind: string;
  status: number;
  ms: number;
  phase: string;
  body?: string;
}

test.serial(
  'a node killed with -9 under uploads, edits, deletes and searches: no 5xx, no wait past the time-out, nothing lost',
  async (t) => {
    t.timeout(480_000);
    const c = setup(t);
    if (!c) return;
    const auth = { 'X-Access-Key': c.key };
    const json = { ...auth, 'Content-Type': 'application/json' };

    // The index was created with ELASTICSEARCH_REPLICAS=0-1: on three nodes, one replica.
    await eventually(async () => (await c.es.cluster.health({ index: c.alias })).status === 'green', 60_000, 250);
    const [name] = Object.keys(await c.es.indices.getAlias({ name: c.alias }));
    const settings = (await c.es.indices.getSettings({ index: name, flat_settings: true }))[name].settings as Record<
      string,
      string
    >;
    t.is(settings['index.auto_expand_replicas'], '0-1');
    t.is(settings['index.number_of_replicas'], '1');

    let phase = 'before';
    const calls: Call[] = [];
    const request = async (kind: string, path: string, init: RequestInit): Promise<{ status: number; body: any }> => {
      const started = performance.now();
      let status = -1;
      let text: string;
      try {
        const res = await fetch(c.server.url + path, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
        status = res.status;
        text = await res.text();
      } catch (err) {
        text = (err as Error).message; // aborted by the time-out, or refused
      }
      calls.push({
        kind,
        status,
        ms: performance.now() - started,
        phase,
        ...(status >= 300 || status < 0 ? { body: text.slice(0, 300) } : {}),
      });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status, body };
    };

    // Every acknowledged write: the text a post must have, or null once deleted. Each worker owns its
    // posts, so the last acknowledgement is the truth; a write that was not acknowledged makes its post uncertain.
    const expected = new Map<string, string | null>();
    const uncertain = new Set<string>();
    let seed = 90_000;
    const upload = async (w: number, owned: string[]) => {
      const text = `cluster w${w} n${seed}`;
      const res = await request('upload', '/api/post/', {
        method: 'POST',
        headers: auth,
        body: uploadForm({ image: await randomImage(seed++), metadata: { text, tags: ['cluster', `w${w}`] } }),
      });
      if (res.status === 201) {
        owned.push(res.body.id);
        expected.set(res.body.id, text);
      }
    };
    const owned: string[][] = Array.from({ length: WORKERS }, () => []);
    for (let w = 0; w < WORKERS; w++) for (let i = 0; i < SEED_PER_WORKER; i++) await upload(w, owned[w]);
    t.is(expected.size, WORKERS * SEED_PER_WORKER, JSON.stringify(calls.filter((x) => x.status !== 201)));

    // The hardest loss of one node: the elected master that also holds the primary, so a new master
    // must be elected before the replica can be promoted. Move the copies there before the load starts.
    await primaryOnMaster(t, c.es, c.alias);

    let stop = false;
    const readiness: { status: number; cluster?: string; phase: string }[] = [];
    const pollReady = (async () => {
      while (!stop) {
        const res = await request('readyz', '/readyz', {});
        readiness.push({ status: res.status, cluster: res.body?.cluster, phase });
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const workers = Array.from({ length: WORKERS }, async (_, w) => {
      const mine = owned[w];
      for (let step = 0; !stop; step++) {
        const action = step % 6;
        if (action === 0) await upload(w, mine);
        else if (action === 3 && mine.length > 2) {
          const id = mine.shift()!;
          const res = await request('delete', `/api/post/${id}`, { method: 'DELETE', headers: auth });
          if (res.status === 204) expected.set(id, null);
          else uncertain.add(id);
        } else if (action === 1 || action === 2) {
          const id = mine[step % mine.length];
          const text = `cluster w${w} edit ${step}`;
          const res = await request('edit', `/api/post/${id}`, {
            method: 'PATCH',
            headers: json,
            body: JSON.stringify({ text }),
          });
          if (res.status === 200) expected.set(id, text);
          else uncertain.add(id);
        } else {
          await request('search', '/api/post/search', {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ filter: [{ type: 'tag', op: 'include', value: `w${w}` }] }),
          });
        }
      }
    });

    const waitMs = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await waitMs(3000);
    const shards = await c.es.cat.shards({ index: c.alias, format: 'json' });
    const primaryNode = shards.find((s) => s.prirep === 'p')?.node;
    const victim = c.cluster.nodes.find((n) => n.name === primaryNode);
    if (!victim) throw new Error(`no node holds the primary: ${JSON.stringify(shards)}`);
    const master = (await c.es.cat.master({ format: 'json' }))[0]?.node;
    t.true(
      master === victim.name,
      `${victim.name} holds the primary and is the elected master (the master is ${master})`,
    );
    t.log(`killing ${victim.name}, the elected master and the holder of ${c.alias}'s primary`);
    phase = 'down';
    await victim.kill9();
    const killedAt = performance.now();
    await eventually(async () => (await c.cluster.health()).joined === 2, 60_000, 250);
    // Stay down for a while under load, then bring it back (the service is not restarted).
    await waitMs(8000);
    phase = 'restarting';
    await victim.start();
    t.log(`${victim.name} back after ${((performance.now() - killedAt) / 1000).toFixed(1)} s`);
    phase = 'recovering';
    await eventually(async () => (await c.cluster.health()).status === 'green', 120_000, 250);
    t.log(`green ${((performance.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
    await waitMs(1000);
    stop = true;
    await Promise.all([...workers, pollReady]);

    // No request waited as long as the client's time-out (none was aborted), and none failed.
    const by = (kind: string) => calls.filter((x) => x.kind === kind);
    const slowest = Math.max(...calls.map((x) => x.ms));
    const summary = ['upload', 'edit', 'delete', 'search', 'readyz']
      .map((k) => `${k}: ${by(k).length} (max ${Math.round(Math.max(0, ...by(k).map((x) => x.ms)))} ms)`)
      .join(', ');
    t.log(summary);
    t.log(`during the outage: ${calls.filter((x) => x.phase !== 'before' && x.kind !== 'readyz').length} requests`);
    t.true(slowest < CLIENT_TIMEOUT_MS, `slowest request took ${Math.round(slowest)} ms`);
    t.deepEqual(
      calls.filter((x) => x.kind === 'search' && x.status !== 200),
      [],
      'every search answered 200',
    );
    t.deepEqual(
      calls.filter((x) => x.status < 0 || x.status >= 500),
      [],
      'no request failed or answered 5xx',
    );
    t.deepEqual(
      calls.filter((x) => x.kind !== 'readyz' && x.kind !== 'search' && ![200, 201, 204].includes(x.status)),
      [],
      'every write was acknowledged',
    );
    t.true(
      calls.some((x) => x.phase === 'down' && x.kind === 'search'),
      'searches ran while the node was down',
    );
    t.true(
      calls.some((x) => x.phase === 'down' && x.kind === 'edit'),
      'edits ran while the node was down',
    );

    // Readiness: never 503 (the posts index always had a primary); it reported the degraded cluster.
    t.deepEqual(
      readiness.filter((r) => r.status !== 200),
      [],
    );
    t.true(
      readiness.some((r) => r.cluster === 'yellow'),
      `cluster states seen: ${[...new Set(readiness.map((r) => r.cluster))].join(', ')}`,
    );
    t.is(readiness[readiness.length - 1].cluster, 'green');

    // The log says it degraded and recovered.
    await eventually(() => /cluster is green again/.test(c.server.output()), 15_000, 250);
    t.regex(c.server.output(), /elasticsearch cluster degraded; the posts index still serves/);

    // Once the relay is idle, every acknowledged write is in the index, exactly.
    await eventually(
      async () => {
        const metrics = await (await fetch(`${c.server.url}/metrics`)).text();
        return /^imgpost_outbox_backlog 0$/m.test(metrics);
      },
      60_000,
      250,
    );
    await c.es.indices.refresh({ index: c.alias });
    const ids = [...expected.keys()].filter((id) => !uncertain.has(id));
    const docs = await c.es.mget<{ text: string }>({ index: c.alias, ids });
    const wrong = docs.docs.flatMap((d) => {
      const want = expected.get(d._id);
      const found = 'found' in d && d.found ? (d as { _source?: { text: string } })._source?.text : null;
      return found === want ? [] : [`${d._id}: want ${JSON.stringify(want)}, index has ${JSON.stringify(found)}`];
    });
    t.deepEqual(wrong, []);
    t.true(ids.length > WORKERS * SEED_PER_WORKER, `${ids.length} posts checked`);
    t.is(uncertain.size, 0);

    const verified = await cli(['verify', '--json'], { ...c.env, LOG_LEVEL: 'warn' });
    t.is(verified.code, 0, verified.stderr);
    const result = JSON.parse(verified.stdout);
    t.true(result.clean);
    t.deepEqual(result.drift, []);
  },
);

test.serial(
  'imgpost reindex on the cluster swaps the alias to an index with ELASTICSEARCH_REPLICAS applied',
  async (t) => {
    t.timeout(240_000);
    const c = setup(t);
    if (!c) return;
    const before = Object.keys(await c.es.indices.getAlias({ name: c.alias }));
    // Two replicas: a copy on every node of the three, unlike the 0-1 the index was created with.
    const r = await cli(['reindex', '--json'], { ...c.env, ELASTICSEARCH_REPLICAS: '2', LOG_LEVEL: 'warn' });
    t.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    t.deepEqual(result.previous, before);
    t.deepEqual(Object.keys(await c.es.indices.getAlias({ name: c.alias })), [result.index]);
    const settings = (await c.es.indices.getSettings({ index: result.index, flat_settings: true }))[result.index]
      .settings as Record<string, string>;
    t.is(settings['index.number_of_replicas'], '2');
    t.is(settings['index.auto_expand_replicas'], 'false');
    // Reindex waited for the copies before swapping: all three started, one per node.
    const shards = await c.es.cat.shards({ index: result.index, format: 'json' });
    t.is(shards.filter((s) => s.state === 'STARTED').length, 3, JSON.stringify(shards));
    t.is(new Set(shards.map((s) => s.node)).size, 3);
    // The server keeps serving from the new index.
    const res = await fetch(`${c.server.url}/api/post/search`, {
      method: 'POST',
      headers: { 'X-Access-Key': c.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ filter: [{ type: 'tag', op: 'include', value: 'cluster' }] }),
    });
    t.is(res.status, 200);
    t.is((await res.json()).count, result.posts);
  },
);
