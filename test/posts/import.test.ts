import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { importDirectory } from '../../src/posts/import.ts';
import { silentProgress } from '../../src/util/progress.ts';
import { startTestApp, tempDir } from '../helpers/app.ts';
import { randomImage, vector } from '../helpers/fixtures.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const run = promisify(execFile);

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

  const { services } = app;
  const result = await importDirectory(services.postService, services.images.tmpDir, dir, {
    force: false,
    progress: () => silentProgress,
  });
  t.is(result.imported, 3);
  t.is(result.duplicates, 1);
  t.deepEqual(
    result.invalid.map((i) => path.basename(i.file)),
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

  // The CLI, as an operator runs it: --force brings in the near-duplicate too.
  const forced = await run(process.execPath, [CLI_JS, 'import', dir, '--force', '--json'], {
    env: {
      ...process.env,
      DATA_DIR: app.dataDir,
      ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277',
      ELASTICSEARCH_INDEX_PREFIX: services.config.elasticsearch.indexPrefix,
      LOG_LEVEL: 'warn',
    },
  }).catch((e) => e);
  t.is(forced.code, 1, 'exit 1: one file was not an image');
  // Bare files (no gallery-dl metadata beside them) are counted apart from a board's posts (docs/decisions.md §22).
  t.like(JSON.parse(forced.stdout), { bare: 4, bareDuplicates: 0 });
  t.is((await (await app.request('/api/post/')).json()).count, 7);
});
