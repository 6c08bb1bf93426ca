/**
 * kill -9 of the server while its dispatcher thread sends and writes results in batches
 * (src/webhooks/result-writer.ts), then a restart on the same DATA_DIR: every delivery on record as
 * delivered at the kill had reached its receiver and is not sent again; everything else arrives after
 * the restart, at least once and in order per webhook; every delivery ends with one successful
 * attempt on record. The real server and CLI as child processes, real receivers.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import test from 'ava';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { childEnv, cliUser, startChild, type ChildServer } from '../reliability/child-server.ts';
import { eventually, startReceiver, type Receiver } from './receiver.ts';

const CLIENTS = 4;
/** The kill comes once this many deliveries are on record, plus a random moment (CRASH_JITTER_MS repeats it). */
const KILL_AFTER_DELIVERED = 150;
const KILL_JITTER_MS = Number(process.env.CRASH_JITTER_MS ?? Date.now() % 200);

interface DeliveryOnRecord {
  id: string;
  seq: number;
  webhookId: string;
  status: string;
  successes: number;
}

function deliveriesOnRecord(dataDir: string): DeliveryOnRecord[] {
  const db = new Database(path.join(dataDir, 'imgpost.sqlite'));
  try {
    return db
      .prepare(
        `SELECT d.id, d.seq, d.webhook_id AS webhookId, d.status,
                (SELECT count(*) FROM webhook_attempts_each a WHERE a.delivery_id = d.id AND a.outcome = 'success') AS successes
         FROM webhook_deliveries d ORDER BY d.seq`,
      )
      .all() as DeliveryOnRecord[];
  } finally {
    db.close();
  }
}

const idsAt = (r: Receiver) => r.received.map((x) => String(x.headers['x-webhook-delivery']));

test('kill -9 mid-drain: deliveries on record were received and are not sent again; the rest arrive after the restart, in order', async (t) => {
  t.timeout(120_000);
  const { env, dataDir } = await childEnv(t, 'webhook-crash', {
    WEBHOOK_ALLOW_PRIVATE: '1',
    // What the killed process had claimed is sent again once its claim runs out: 2 s, not the default.
    WEBHOOK_CLAIM_LEASE_MS: '2000',
  });
  const receivers = [await startReceiver(200), await startReceiver(200)];
  let server: ChildServer | undefined;
  t.teardown(async () => {
    await server?.stop();
    for (const r of receivers) await r.close();
  });
  const key = await cliUser(env, 'hook_crash', 0x2 | 0x4 | 0x2000);
  const auth = { 'X-Access-Key': key };
  server = await startChild(env);
  const base = server.url;
  const hookIds: string[] = [];
  for (const [i, r] of receivers.entries()) {
    const res = await fetch(`${base}/api/webhook`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: r.url, secret: `crash-${i}`, events: ['create', 'update'] }),
    });
    t.is(res.status, 201);
    hookIds.push(((await res.json()) as { id: string }).id);
  }
  const posts: string[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const res = await fetch(`${base}/api/post/`, {
      method: 'POST',
      headers: auth,
      body: uploadForm({ image: await randomImage(31_000 + c) }),
    });
    t.is(res.status, 201);
    posts.push(((await res.json()) as { id: string }).id);
  }

  // Edits as fast as the clients go; each queues one delivery per webhook. The kill lands while
  // deliveries are being sent and their results written.
  let killed = false;
  const killer = (async () => {
    await eventually(
      () => deliveriesOnRecord(dataDir).filter((d) => d.status === 'delivered').length >= KILL_AFTER_DELIVERED,
      60_000,
      50,
    );
    await new Promise((r) => setTimeout(r, KILL_JITTER_MS));
    killed = true;
    await server!.kill9();
  })();
  await Promise.all(
    posts.map(async (id, c) => {
      for (let n = 0; !killed; n++) {
        try {
          const res = await fetch(`${base}/api/post/${id}`, {
            method: 'PUT',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({ text: `edit ${c}.${n}` }),
          });
          await res.arrayBuffer();
        } catch {
          // The server is gone.
        }
      }
    }),
  );
  await killer;

  // What the killed server had on record: each delivered one reached its receiver, with one success logged.
  const atKill = deliveriesOnRecord(dataDir);
  const deliveredAtKill = atKill.filter((d) => d.status === 'delivered');
  const receivedAtKill = receivers.map((r) => new Set(idsAt(r)));
  t.log(
    `killed ${KILL_JITTER_MS} ms after ${KILL_AFTER_DELIVERED} deliveries were on record: ${deliveredAtKill.length} of ${atKill.length} on record as delivered, ${receivers.reduce((n, r) => n + r.received.length, 0)} received`,
  );
  t.true(deliveredAtKill.length >= KILL_AFTER_DELIVERED);
  for (const d of deliveredAtKill) {
    t.true(receivedAtKill[hookIds.indexOf(d.webhookId)].has(d.id), `delivery ${d.id} on record but never received`);
    t.is(d.successes, 1, `delivery ${d.id}: one success on record`);
  }

  server = await startChild(env);
  const done = () => deliveriesOnRecord(dataDir).every((d) => d.status === 'delivered');
  await eventually(done, 60_000, 100);
  const final = deliveriesOnRecord(dataDir);
  t.is(final.length, atKill.length, 'no delivery was queued after the kill');
  for (const d of final) t.is(d.successes, 1, `delivery ${d.id}: one success on record`);
  for (const [i, r] of receivers.entries()) {
    const ids = idsAt(r);
    const count = new Map<string, number>();
    for (const id of ids) count.set(id, (count.get(id) ?? 0) + 1);
    const mine = final.filter((d) => d.webhookId === hookIds[i]);
    // At least once, in queue order: the first arrival of each delivery follows the order they were queued in.
    t.deepEqual(
      [...new Set(ids)],
      mine.map((d) => d.id),
      `webhook ${i}: every delivery, in order`,
    );
    for (const d of deliveredAtKill.filter((x) => x.webhookId === hookIds[i]))
      t.is(count.get(d.id), 1, `delivery ${d.id} was on record before the kill and was sent again`);
  }
  t.false(/"level":"error"/.test(server.output()), server.output().slice(-2000));
});
