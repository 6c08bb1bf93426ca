/**
 * The server's dispatcher runs on a thread of its own (src/webhooks/dispatcher-thread.ts), started
 * by the first delivery rather than by the server, and again at start-up when deliveries are pending.
 */
import test from 'ava';
import { restartableApps, startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import type { DispatcherThread } from '../../src/webhooks/dispatcher-thread.ts';
import { eventually, startReceiver } from './receiver.ts';

const threadOf = (app: TestApp) => app.services.webhookDispatcher as DispatcherThread;

test('no thread until there is something to send; pending deliveries start it after a restart', async (t) => {
  const receiver = await startReceiver(200);
  t.teardown(() => receiver.close());
  const apps = restartableApps(t, 'dispatcher-thread');

  const app1 = await apps.start();
  const user = await createUser(app1, 0x2 | 0x4);
  // A post without any webhook: nothing is queued, no thread.
  const first = await app1.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(9300) }),
  });
  t.is(first.status, 201);
  t.false(threadOf(app1).threadRunning);

  // The first event for a webhook starts it, and the event arrives.
  const hook = await app1.request('/api/webhook', {
    method: 'POST',
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, secret: 's3cret', events: ['create'], template: '{"id": {{.ImageID}}}' }),
  });
  t.is(hook.status, 201);
  t.false(threadOf(app1).threadRunning, 'a webhook alone sends nothing');
  const second = await app1.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(9301) }),
  });
  t.is(second.status, 201);
  await receiver.waitFor(1);
  t.true(threadOf(app1).threadRunning);
  await app1.services.webhookDispatcher.whenIdle();
  t.like(app1.services.webhookDispatcher.stats, { sent: 1, delivered: 1 });

  // Stopped with a delivery still queued (written while no dispatcher ran), then started again.
  await app1.services.webhookDispatcher.stop();
  t.false(threadOf(app1).threadRunning);
  const third = await app1.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(9302) }),
  });
  t.is(third.status, 201);
  await apps.shutDown(app1);
  t.is(receiver.received.length, 1);

  const app2 = await apps.start();
  t.true(threadOf(app2).threadRunning, 'pending at start-up: the thread starts with the server');
  const got = await receiver.waitFor(2);
  t.is(got[1].body, `{"id": ${app2.services.postRepository.getById((await third.json()).id)!.seq}}`);
  await eventually(() => app2.services.webhookDispatcher.stats.delivered === 1);
});

test('with WEBHOOK_DISPATCHER_THREADS=2 the threads share the webhooks: every event once, in order, at each', async (t) => {
  const receivers = await Promise.all([0, 1, 2].map(() => startReceiver(200)));
  const app = await startTestApp({ WEBHOOK_DISPATCHER_THREADS: '2' });
  t.teardown(async () => {
    await app.close();
    await Promise.all(receivers.map((r) => r.close()));
  });
  const user = await createUser(app, 0x2 | 0x4);
  for (const [i, r] of receivers.entries()) {
    const hook = await app.request('/api/webhook', {
      method: 'POST',
      headers: { ...user.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        url: r.url,
        secret: 's3cret',
        events: ['create'],
        template: i === 0 ? null : '{"id": {{.ImageID}}}',
      }),
    });
    t.is(hook.status, 201);
  }
  const seqs: number[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(9400 + i) }),
    });
    t.is(res.status, 201);
    seqs.push(app.services.postRepository.getById((await res.json()).id)!.seq);
  }
  for (const r of receivers) await r.waitFor(6);
  await app.services.webhookDispatcher.whenIdle();
  for (const r of receivers.slice(1))
    t.deepEqual(
      r.received.map((x) => x.body),
      seqs.map((seq) => `{"id": ${seq}}`),
    );
  t.deepEqual(
    receivers[0].received.map((x) => (JSON.parse(x.body) as { data: { imageID: number } }).data.imageID),
    seqs,
  );
  t.like(app.services.webhookDispatcher.stats, { sent: 18, delivered: 18, failed: 0 });
});
