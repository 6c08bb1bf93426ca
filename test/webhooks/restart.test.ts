import test from 'ava';
import { restartableApps } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { sleep, startReceiver } from './receiver.ts';

test('undelivered events survive a restart and arrive once each, in order', async (t) => {
  const receiver = await startReceiver('hang');
  t.teardown(() => receiver.close());
  const apps = restartableApps(t, 'restart');

  const app1 = await apps.start();
  const user = await createUser(app1, 0x2 | 0x4);
  const hook = await app1.request('/api/webhook', {
    method: 'POST',
    headers: { ...user.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      url: receiver.url,
      secret: 's3cret',
      events: ['create', 'update'],
      template: '{"e": {{json .Event}}, "id": {{.ImageID}}}',
    }),
  });
  t.is(hook.status, 201);
  const upload = async (seed: number) => {
    const res = await app1.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: await randomImage(seed) }),
    });
    return app1.services.postRepository.getById((await res.json()).id)!.seq;
  };

  // Event 1 is in flight when the dispatcher stops: the receiver has it but never answered.
  const a = await upload(9100);
  const [cut] = await receiver.waitFor(1);
  const stopping = Date.now();
  await app1.services.webhookDispatcher.stop();
  t.true(Date.now() - stopping < 5000, 'stopping does not wait for the 30 s time-out');
  // Events 2 and 3 are committed with their post changes while nothing sends them.
  t.is(
    (
      await app1.request(`/api/post/${a}`, {
        method: 'PUT',
        headers: { ...user.headers, 'Content-Type': 'application/json' },
        body: '{"text":"x"}',
      })
    ).status,
    200,
  );
  const b = await upload(9101);
  await apps.shutDown(app1);
  t.is(receiver.received.length, 1);

  receiver.mode = 200;
  const app2 = await apps.start();
  const got = await receiver.waitFor(4);
  await sleep(300);
  await app2.services.webhookDispatcher.whenIdle();
  t.deepEqual(
    receiver.received.map((r) => r.body),
    [
      `{"e": "create", "id": ${a}}`,
      `{"e": "create", "id": ${a}}`,
      `{"e": "update", "id": ${a}}`,
      `{"e": "create", "id": ${b}}`,
    ],
  );
  // The only repeat is the attempt that was cut short, recognisable by its delivery id.
  t.is(got[1].headers['x-webhook-delivery'], cut.headers['x-webhook-delivery']);
  t.is(new Set(got.slice(1).map((r) => r.headers['x-webhook-delivery'])).size, 3);
  // The cut attempt left no failure behind; the record shows three successes.
  const attempts = await (
    await app2.request(`/api/webhook/${(await hook.json()).id}/deliveries`, { headers: user.headers })
  ).json();
  t.deepEqual(
    attempts.map((x: { outcome: string }) => x.outcome),
    ['success', 'success', 'success'],
  );
});
