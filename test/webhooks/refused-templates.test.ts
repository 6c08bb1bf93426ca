import test from 'ava';
import { restartableApps } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { eventually, startReceiver } from './receiver.ts';

const LOG_LINE = 'a saved webhook template is refused by the template rules';

test('a saved template the rules refuse keeps its webhook, is named once at start-up, and its deliveries fail as template errors', async (t) => {
  const receiver = await startReceiver(200);
  t.teardown(() => receiver.close());
  const apps = restartableApps(t, 'refused-template');

  const first = await apps.start();
  const user = await createUser(first, 0x2 | 0x4);
  // Saved under the looser rules of before (Changes was an empty map on create, so `len` gave 0);
  // Go refuses `len` of the nil Changes, and so do we now. The API would refuse it: write it as it was stored.
  const template = '{"changed": {{len .Changes}}}';
  const saved = first.services.webhookRepository.subscriptions.insertWithin(10, {
    ownerId: user.id,
    label: 'from before',
    url: receiver.url,
    secret: 's3cret',
    events: ['create'],
    template,
  })!;
  const fine = first.services.webhookRepository.subscriptions.insertWithin(10, {
    ownerId: user.id,
    label: 'still fine',
    url: receiver.url,
    secret: 's3cret',
    events: ['create'],
    template: '{"id": {{.ImageID}}}',
  })!;
  await apps.shutDown(first);

  const app = await apps.start();
  const named = app.logs.filter((l) => l.includes(LOG_LINE));
  t.is(named.length, 1, 'named once');
  t.true(named[0].includes(saved.id) && named[0].includes('from before') && named[0].includes('len of nil pointer'));
  t.false(named[0].includes(fine.id));

  // The webhook is kept as it was.
  const listed = await (await app.request('/api/webhook', { headers: user.headers })).json();
  t.deepEqual(
    listed.map((w: { id: string; template: string; state: string }) => [w.id, w.template, w.state]).sort(),
    [
      [saved.id, template, 'active'],
      [fine.id, '{"id": {{.ImageID}}}', 'active'],
    ].sort(),
  );

  // Its deliveries fail as template errors; the other webhook's arrive.
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(4040) }),
  });
  t.is(res.status, 201);
  await receiver.waitFor(1);
  const attempts = (await eventually(async () => {
    const r = await app.request(`/api/webhook/${saved.id}/deliveries`, { headers: user.headers });
    const list = (await r.json()) as { outcome: string; error: string | null; responseStatus: number | null }[];
    return list.length > 0 ? list : undefined;
  }))!;
  t.like(attempts[0], { outcome: 'failure', responseStatus: null });
  t.regex(attempts[0].error ?? '', /^template: .*len of nil pointer/);
  t.is(receiver.received.length, 1, 'only the other webhook was sent anything');
});
