/**
 * The near-duplicate check runs its index lookup outside the insert's transaction
 * (src/posts/near-duplicates.ts): a post committed between an upload's lookup and its insert, by
 * this server or by another process, must still make it a duplicate. The races are forced here step
 * by step, through HTTP and the real command line with the real index and database, instead of
 * hoping that concurrent uploads happen to interleave that way. Each test leaves one post stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { imgpost, type CliResult } from '../cli/run-cli.ts';
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

test.serial('an upload committed after another upload looked in the index still makes that one a 409', async (t) => {
  const image = await randomImage(88_001);
  const upload = () =>
    app.request('/api/post/', {
      method: 'POST',
      headers: { 'X-Access-Key': user.accessKey },
      body: uploadForm({ image }),
    });
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
  // Clean slate for the next test.
  const gone = await app.request(`/api/post/${stored.id}`, {
    method: 'DELETE',
    headers: { 'X-Access-Key': user.accessKey },
  });
  t.is(gone.status, 204);
});

test.serial(
  'a post `imgpost import` commits while an upload is between its checks makes the upload a 409',
  async (t) => {
    // The window between the upload's checks and its insert is made as wide as a whole import run by
    // another process (the same code path, its own connection): the upload's last check must see it.
    const image = await randomImage(88_002);
    const source = tempDir('imgpost-import-race');
    t.teardown(() => fs.rmSync(source, { recursive: true, force: true }));
    fs.writeFileSync(path.join(source, 'same.png'), image);
    let imported: CliResult | undefined;
    app.services.postService.hooks.beforeInsert = async () => {
      app.services.postService.hooks.beforeInsert = undefined;
      imported = await imgpost(app, 'import', source, '--json');
    };
    t.teardown(() => void (app.services.postService.hooks.beforeInsert = undefined));
    const before = app.services.postRepository.count();

    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: { 'X-Access-Key': user.accessKey },
      body: uploadForm({ image }),
    });
    t.truthy(imported, 'the import ran inside the window');
    t.is(imported!.code, 0, imported!.stderr);
    t.like(JSON.parse(imported!.stdout), { bare: 1, bareDuplicates: 0 });
    const body = await res.text();
    t.is(res.status, 409, body);
    const importedPost = [...app.services.postRepository.batches(100)].flat().find((p) => p.uploaderId === null);
    t.truthy(importedPost);
    t.true(body.includes(importedPost!.id), body);
    t.is(app.services.postRepository.count(), before + 1, 'only the imported post is stored');
  },
);
