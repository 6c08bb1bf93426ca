/**
 * The near-duplicate check runs its index lookup outside the upload lock (src/posts/near-duplicates.ts):
 * a post committed between an upload's lookup and its insert must still make it a duplicate. The
 * race is forced here step by step, through HTTP with the real index and database, instead of hoping
 * that concurrent uploads happen to interleave that way.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { eventually } from '../webhooks/receiver.ts';

let app: TestApp;
let user: TestUser;

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
});
test.after.always(() => app?.close());

test('an upload committed after another upload looked in the index still makes that one a 409', async (t) => {
  const image = await randomImage(88_001);
  const upload = () => app.request('/api/post/', { method: 'POST', headers: { 'X-Access-Key': user.accessKey }, body: uploadForm({ image }) });
  // The first search the index answers is held back after it answered: that upload has looked and
  // found nothing, and goes on only once the other upload has committed.
  const es = app.services.postsIndex.client;
  const search = es.search.bind(es) as (...args: unknown[]) => Promise<unknown>;
  let held = false;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  es.search = (async (...args: unknown[]) => {
    const answer = await search(...args);
    if (!held) {
      held = true;
      await gate;
    }
    return answer;
  }) as unknown as typeof es.search;
  t.teardown(() => void (es.search = search as unknown as typeof es.search));

  const first = upload();
  await eventually(() => held, 30_000, 10);
  const second = await upload();
  t.is(second.status, 201);
  const stored = (await second.json()) as { id: string };
  release();
  const late = await first;
  t.is(late.status, 409);
  const body = (await late.json()) as { error: { data?: unknown } } & Record<string, unknown>;
  t.true(JSON.stringify(body).includes(stored.id), JSON.stringify(body));
  t.is(app.services.db.prepare('SELECT count(*) FROM posts').pluck().get(), 1);
});
