/**
 * A killed import started again (docs/decisions.md §22): `kill -9` in the middle of a 2,000-post import,
 * then the same import again, ends with exactly 2,000 posts, each origin once, and `imgpost verify`
 * clean. The images are tiny (sharp, 16x12) so the test stays lean.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage } from '../helpers/fixtures.ts';
import { imgpost, spawnImgpost } from '../cli/run-cli.ts';

const POSTS = 2000;
let app: TestApp;
let archive: string;

let written = 0;
test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  const t0 = Date.now();
  archive = tempDir('imgpost-crash');
  const images = await Promise.all(Array.from({ length: POSTS }, (_, i) => randomImage(200_001 + i, 16, 12)));
  for (let i = 1; i <= POSTS; i++) {
    const name = `${i}.png`;
    fs.writeFileSync(path.join(archive, name), images[i - 1]);
    fs.writeFileSync(
      path.join(archive, `${name}.json`),
      JSON.stringify({
        id: i,
        created_at: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString(),
        md5: '',
        rating: 'g',
        source: '',
        tag_string: `crash n${i % 50}`,
        tag_string_general: `crash n${i % 50}`,
        parent_id: i % 10 === 0 ? i - 1 : null,
        category: 'crashbooru',
      }),
    );
  }
  written = t0;
});
test.after.always(async () => {
  await app?.close();
  if (archive) fs.rmSync(archive, { recursive: true, force: true });
});

/** Polls until `ready()` holds (no fixed sleeps). */
async function until(ready: () => boolean, timeoutMs = 180_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('kill -9 in the middle, then again: exactly 2,000 posts, each origin once, verify clean', async (t) => {
  t.timeout(400_000);
  const started = Date.now();
  t.log(`archive written in ${started - written} ms`);
  const child = spawnImgpost(app, 'import', archive);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await until(() => app.services.postRepository.count() >= POSTS / 4);
  child.kill('SIGKILL');
  t.is(await exited, 'SIGKILL');
  const killedAt = app.services.postRepository.count();
  t.true(killedAt > 0 && killedAt < POSTS, `killed after ${killedAt} posts`);

  t.log(`killed after ${killedAt} posts, ${Date.now() - started} ms`);
  const again = await imgpost(app, 'import', archive, '--json');
  t.log(`finished ${Date.now() - started} ms`);
  t.is(again.code, 0, again.stderr);
  const s = JSON.parse(again.stdout);
  t.is(s.alreadyImported + s.imported, POSTS);
  t.is(s.alreadyImported, killedAt);
  // Each child waited for its parent (one post in ten names the one before it), so named it at insert.
  t.is(s.parentsSet, 0);
  t.is(app.services.postRepository.count(), POSTS);
  const posts = [...app.services.postRepository.batches(500)].flat();
  const origins = posts.flatMap((p) => p.origins.map((o) => `${o.site}/${o.id}`));
  t.is(new Set(origins).size, POSTS);
  t.is(origins.length, POSTS);
  const bySeq = new Map(posts.map((p) => [Number(p.origins[0].id), p]));
  for (let i = 10; i <= POSTS; i += 10) t.is(bySeq.get(i)!.parentId, bySeq.get(i - 1)!.id, `post ${i}'s parent`);

  const verify = await imgpost(app, 'verify');
  t.is(verify.code, 0, verify.stdout + verify.stderr);
});
