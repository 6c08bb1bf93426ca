/**
 * `imgpost import` and `imgpost rethumb` as an operator runs them (child processes, stderr a pipe):
 * progress in the log, --json summaries with the right numbers, files on disk, exit statuses.
 * One app for the file; the tests build on each other, so they run serially.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { imageName, THUMBNAIL_SIZES, thumbnailName } from '../../src/kernel/media-names.ts';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage } from '../helpers/fixtures.ts';
import { imgpost, progressProblem } from './run-cli.ts';

const IMAGES = 5;
let app: TestApp;
let source: string;

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  source = tempDir('imgpost-cli-import');
  fs.mkdirSync(path.join(source, 'sub'));
  for (let i = 0; i < IMAGES; i++)
    fs.writeFileSync(path.join(source, i % 2 ? 'sub' : '', `p${i}.png`), await randomImage(9100 + i));
  fs.writeFileSync(path.join(source, 'readme.txt'), 'not an image file name: not counted');
});
test.after.always(async () => {
  await app?.close();
  if (source) fs.rmSync(source, { recursive: true, force: true });
});

const posts = (): PostRecord[] => [...app.services.postRepository.batches(100)].flat();
const thumbPaths = (post: PostRecord) =>
  THUMBNAIL_SIZES.map((size) => app.services.images.pathOf(thumbnailName(post.id, size)));
/** A WebP file: RIFF....WEBP */
const isWebp = (file: string) =>
  fs.existsSync(file) && fs.readFileSync(file).subarray(8, 12).toString('latin1') === 'WEBP';

test.serial(
  'import --json: progress over the files on stderr, the summary on stdout, the posts in SQLite',
  async (t) => {
    const r = await imgpost(app, 'import', source, '--json');
    t.is(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    t.deepEqual([summary.bare, summary.bareDuplicates, summary.refused], [IMAGES, 0, []]);
    t.is(progressProblem(r, 'import', IMAGES, 'posts'), undefined);
    t.regex(r.stderr, new RegExp(`bare files ${IMAGES} \\(near-duplicates skipped 0\\).* refused 0$`, 'm'));
    t.is(app.services.postRepository.count(), IMAGES);
    for (const post of posts()) {
      t.is(post.uploaderId, null, 'legacy posts have no owner');
      t.true(fs.existsSync(app.services.images.pathOf(imageName(post))));
    }

    // Again: every file is now a near-duplicate of a post, and the summary says so.
    const again = await imgpost(app, 'import', source, '--json');
    t.is(again.code, 0, again.stderr);
    const second = JSON.parse(again.stdout);
    t.deepEqual([second.bare, second.bareDuplicates, second.refused], [0, IMAGES, []]);
    t.is(progressProblem(again, 'import', IMAGES, 'posts'), undefined);
    t.is(app.services.postRepository.count(), IMAGES);
  },
);

test.serial("rethumb --json regenerates every post's thumbnails, with progress", async (t) => {
  const all = posts();
  t.is(all.length, IMAGES);
  for (const file of all.flatMap(thumbPaths)) fs.rmSync(file, { force: true });

  const r = await imgpost(app, 'rethumb', '--json');
  t.is(r.code, 0, r.stderr);
  t.deepEqual(JSON.parse(r.stdout), { posts: IMAGES, regenerated: IMAGES, skipped: 0, gone: 0, failed: [] });
  t.is(progressProblem(r, 'rethumb', IMAGES, 'posts'), undefined);
  t.regex(r.stderr, new RegExp(`^regenerated thumbnails of ${IMAGES} of ${IMAGES} posts$`, 'm'));
  for (const file of all.flatMap(thumbPaths)) t.true(isWebp(file), file);
  t.deepEqual(
    fs.readdirSync(app.services.images.tmpDir).filter((f) => f.startsWith('rethumb-')),
    [],
    'no temp files left',
  );
});

test.serial('rethumb --missing --json counts only the posts it regenerated', async (t) => {
  const [a, b] = posts();
  fs.rmSync(thumbPaths(a)[0]);
  fs.rmSync(thumbPaths(b)[1]);
  const r = await imgpost(app, 'rethumb', '--missing', '--json');
  t.is(r.code, 0, r.stderr);
  t.deepEqual(JSON.parse(r.stdout), { posts: IMAGES, regenerated: 2, skipped: IMAGES - 2, gone: 0, failed: [] });
  t.is(progressProblem(r, 'rethumb', IMAGES, 'posts'), undefined);
  t.regex(r.stderr, new RegExp(`regenerated thumbnails of 2 of ${IMAGES} posts, ${IMAGES - 2} already complete`));
  for (const file of [...thumbPaths(a), ...thumbPaths(b)]) t.true(isWebp(file), file);
});

test.serial('rethumb: a post whose image is gone fails, the rest are done, exit status 1', async (t) => {
  const victim = posts()[IMAGES - 1];
  fs.rmSync(app.services.images.pathOf(imageName(victim)));
  const r = await imgpost(app, 'rethumb', '--json');
  t.is(r.code, 1, r.stderr);
  const json = JSON.parse(r.stdout);
  t.like(json, { posts: IMAGES, regenerated: IMAGES - 1 });
  t.deepEqual(
    json.failed.map((f: { postId: string }) => f.postId),
    [victim.id],
  );
  t.is(progressProblem(r, 'rethumb', IMAGES, 'posts'), undefined, 'progress reaches the total, failures included');
  t.regex(r.stderr, new RegExp(`, 1 failed\\n  ${victim.id}: image file .* is missing`));
});
