/**
 * A thumbnail job claimed by a process that died (kill -9 of the server mid-thumbnail) is taken back
 * when the next server starts, instead of waiting out its five-minute lease.
 */
import { spawnSync } from 'node:child_process';
import test from 'ava';
import { openDatabase } from '../../src/db/sqlite.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { ThumbnailQueue } from '../../src/kernel/thumbnail-jobs.ts';
import { claimantGone } from '../../src/thumbnails/thumbnailer.ts';
import { tempDir } from '../helpers/app.ts';

test('claims of a process that is gone are released; live ones are kept', (t) => {
  const db = openDatabase(tempDir());
  t.teardown(() => db.close());
  seedPosts(db, { count: 4, tags: 3, seed: 3 });
  const ids = db.prepare('SELECT id, ext FROM posts ORDER BY seq').all() as { id: string; ext: string }[];
  const queue = new ThumbnailQueue(db);
  db.transaction(() => ids.forEach((p) => queue.enqueue(p.id, `${p.id}.${p.ext}`)))();

  // A pid that certainly ran and has exited.
  const deadPid = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
  const dead = `${deadPid}-deadbeef`;
  const alive = `${process.pid}-cafef00d`;
  t.true(claimantGone(dead));
  t.false(claimantGone(alive));
  t.true(claimantGone('not-a-claimant'));

  t.is(queue.claim(dead, 2, 300_000).length, 2);
  t.is(queue.claim(alive, 2, 300_000).length, 2);
  t.is(queue.claim('someone-else', 4, 300_000).length, 0, 'every job is under a lease');

  t.is(queue.releaseClaims(claimantGone), 2);
  const retaken = queue.claim('next-server', 4, 300_000);
  t.is(retaken.length, 2, "the dead process's jobs are due again, the live one's are not");
  t.is(queue.releaseClaims(claimantGone), 2, "'next-server' is no claimant id of a running process");
});
