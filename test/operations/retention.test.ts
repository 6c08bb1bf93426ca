/**
 * Bounded growth (docs/decisions.md §13): with a short retention age, a thousand writes leave the
 * outbox, webhook deliveries and attempts at a bounded size throughout, while the deliveries list
 * still shows the latest 50 attempts, and freed pages go back to the file system.
 */
import test from 'ava';
import { startTestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { eventually, startReceiver } from '../webhooks/receiver.ts';

/**
 * Enough that growth shows: without retention each table would end at WRITES rows or more, over three
 * times BOUND, while the peaks with it stay near a hundred. More writes only repeat the same passes.
 */
const WRITES = 1_000;
const CLIENTS = 8;
/** Far below WRITES: what the lag of relay, dispatcher and one retention interval can leave behind. */
const BOUND = 300;

test('short retention: outbox, deliveries and attempts stay bounded over a thousand writes; the latest 50 attempts stay listed', async (t) => {
  t.timeout(600_000);
  const receiver = await startReceiver(200);
  const app = await startTestApp({
    RETENTION_AGE_MS: '0',
    RETENTION_INTERVAL_MS: '200',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
  });
  t.teardown(async () => {
    await app.close();
    await receiver.close();
  });
  const db = app.services.db;
  t.is(db.pragma('auto_vacuum', { simple: true }), 2, 'a new database uses incremental auto-vacuum');
  const user = await createUser(app, 0x2 | 0x4);
  const json = { ...user.headers, 'Content-Type': 'application/json' };
  const hook = await (
    await app.request('/api/webhook', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ url: receiver.url, secret: 'retention-secret', events: ['create', 'update'] }),
    })
  ).json();
  const created = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(9901) }),
  });
  t.is(created.status, 201);
  const postId = (await created.json()).id as string;

  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  // Attempts are counted one by one (a run of successes is one row holding several: migration 026).
  const peak = { outbox: 0, webhook_deliveries: 0, webhook_attempts_each: 0 };
  const sampler = setInterval(() => {
    for (const table of Object.keys(peak) as (keyof typeof peak)[]) peak[table] = Math.max(peak[table], count(table));
  }, 100);
  t.teardown(() => clearInterval(sampler));

  let next = 0;
  let acknowledged = 0;
  await Promise.all(
    [...Array(CLIENTS)].map(async () => {
      while (next < WRITES) {
        const i = next++;
        const res = await app.request(`/api/post/${postId}`, {
          method: 'PATCH',
          headers: json,
          body: JSON.stringify({ text: `edit ${i}` }),
        });
        if (res.status === 200) acknowledged++;
        await res.arrayBuffer();
      }
    }),
  );
  t.is(acknowledged, WRITES);
  // Every event delivered, then one more pass removes what is settled.
  await eventually(() => receiver.received.length >= WRITES + 1 || undefined, 180_000, 100);
  await app.services.webhookDispatcher.whenIdle();
  await eventually(
    async () => {
      await app.services.retention.runOnce();
      // What is left of the attempts is the rows holding the latest 50: all but the oldest of them hold fewer.
      const held = db.prepare('SELECT attempts FROM webhook_attempts ORDER BY id DESC').pluck().all() as number[];
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      return (
        (sum(held) >= 50 &&
          sum(held.slice(0, -1)) < 50 &&
          count('webhook_deliveries') === 0 &&
          count('outbox') === 0) ||
        undefined
      );
    },
    30_000,
    200,
  );
  clearInterval(sampler);
  t.log('peaks during the run', peak);
  for (const [table, n] of Object.entries(peak))
    t.true(n < BOUND, `${table} peaked at ${n} rows (bound ${BOUND}) over ${WRITES} writes`);

  // The deliveries list is unchanged in meaning: the latest 50 attempts, newest first.
  const listed = await (await app.request(`/api/webhook/${hook.id}/deliveries`, { headers: user.headers })).json();
  t.is(listed.length, 50);
  const newest = receiver.received
    .slice(-50)
    .map((r) => r.headers['x-webhook-delivery'])
    .reverse();
  t.deepEqual(
    listed.map((a: { deliveryId: string }) => a.deliveryId),
    newest,
  );
  t.true(listed.every((a: { outcome: string }) => a.outcome === 'success'));

  // The post is intact (concurrent edits: the last to commit wins).
  t.regex((await (await app.request(`/api/post/${postId}`)).json()).text, /^edit \d+$/);
  // Freed pages went back to the file system (incremental vacuum), not just onto the free list.
  t.true((db.pragma('freelist_count', { simple: true }) as number) < 2_000);
});
