/**
 * `imgpost import DIR` with bare files (no gallery-dl metadata beside them, docs/decisions.md §22): legacy
 * posts without an owner, near-duplicates skipped unless --force, what is not an image reported, the
 * directory left as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir } from '../helpers/app.ts';
import { randomImage, vector } from '../helpers/fixtures.ts';
import { imgpost } from '../cli/run-cli.ts';

test('import: legacy posts without owner, near-duplicates skipped unless --force, files copied', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const dir = tempDir('import-src');
  fs.mkdirSync(path.join(dir, 'nested'));
  fs.writeFileSync(path.join(dir, 'a.png'), await randomImage(11));
  fs.writeFileSync(path.join(dir, 'nested', 'b.jpg'), await randomImage(12, 64, 48, 'jpeg'));
  fs.writeFileSync(path.join(dir, 'c.png'), vector('rgb-200x150.png'));
  fs.writeFileSync(path.join(dir, 'd.jpg'), vector('rgb-100x75-q70.jpg')); // 2 bits from c.png
  fs.writeFileSync(path.join(dir, 'e.png'), 'not an image');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
  const before = fs.readdirSync(dir);

  const first = await imgpost(app, 'import', dir, '--json');
  t.is(first.code, 1, 'exit 1: one file was not an image');
  const summary = JSON.parse(first.stdout);
  t.like(summary, { bare: 3, bareDuplicates: 1 });
  t.deepEqual(
    summary.refused.map((r: { file: string }) => path.basename(r.file)),
    ['e.png'],
  );
  t.deepEqual(fs.readdirSync(dir), before);

  const list = await (await app.request('/api/post/')).json();
  t.is(list.count, 3);
  for (const post of list.data) {
    t.is(post.uploaderId, null);
    t.is(post.uploader, null);
    t.is((await fetch(post.imageURL)).status, 200);
  }

  // --force brings in the near-duplicate too, and the same files once more.
  const forced = await imgpost(app, 'import', dir, '--force', '--json');
  t.is(forced.code, 1, 'exit 1: one file was not an image');
  t.like(JSON.parse(forced.stdout), { bare: 4, bareDuplicates: 0 });
  t.is((await (await app.request('/api/post/')).json()).count, 7);
});
