/**
 * `imgpost verify --repair` fills in the md5 and size (docs/decisions.md §20) of posts the server's
 * backfill has not reached, as an operator runs it (a child process beside the live server); the
 * Danbooru API then shows them. A post whose file is gone gets none and no longer waits.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import test from 'ava';
import { imageName } from '../../src/kernel/media-names.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { imgpost } from './run-cli.ts';

let app: TestApp;
const uploaded: { seq: number; bytes: Buffer }[] = [];

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn', RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
  const user = await createUser(app);
  for (let i = 0; i < 4; i++) {
    const bytes = await randomImage(39_100 + i, 48, 32);
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: user.headers,
      body: uploadForm({ image: bytes, metadata: { text: `facts ${i}`, tags: ['facts'] }, force: '1' }),
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status}`);
    const post = (await res.json()) as { id: string };
    uploaded.push({ seq: app.services.postRepository.getById(post.id)!.seq, bytes });
  }
  // The server's own backfill is stopped, so the command alone fills them in.
  await app.services.fileFacts.stop();
});
test.after.always(async () => app?.close());

const booruPost = async (seq: number) =>
  (await (await app.request(`/posts/${seq}.json`)).json()) as { md5: string | null; file_size: number | null };

test.serial('verify --repair computes the md5 and size the backfill had not reached', async (t) => {
  // Posts from before migration 020: no md5, no size.
  app.services.db.prepare('UPDATE posts SET md5 = NULL, file_size = NULL').run();
  const gone = app.services.postRepository.getBySeq(uploaded[3].seq)!;
  fs.rmSync(app.services.images.pathOf(imageName(gone)));
  t.like(await booruPost(uploaded[0].seq), { md5: null, file_size: null });

  const checked = await imgpost(app, 'verify', '--json');
  t.is(checked.code, 0, checked.stderr);
  t.is(JSON.parse(checked.stdout).fileFactsPending, 4);
  t.regex(checked.stderr, /^4 posts await their file's md5 and size/m);

  const repaired = await imgpost(app, 'verify', '--repair', '--json');
  t.is(repaired.code, 0, repaired.stderr);
  t.like(JSON.parse(repaired.stdout), { clean: true, fileFactsFilled: 4, fileFactsGone: 1, fileFactsPending: 0 });
  t.regex(repaired.stderr, /^filled in the md5 and size of 4 posts \(1 files gone\)$/m);
  for (const { seq, bytes } of uploaded.slice(0, 3)) {
    const post = await booruPost(seq);
    t.is(post.md5, crypto.createHash('md5').update(bytes).digest('hex'));
    t.is(post.file_size, bytes.length);
  }
  t.like(await booruPost(uploaded[3].seq), { md5: null, file_size: null });

  // Nothing waits any more: a second repair has nothing to do.
  const again = await imgpost(app, 'verify', '--repair', '--json');
  t.is(again.code, 0, again.stderr);
  t.like(JSON.parse(again.stdout), { clean: true, fileFactsPending: 0 });
  t.false('fileFactsFilled' in JSON.parse(again.stdout));
});
