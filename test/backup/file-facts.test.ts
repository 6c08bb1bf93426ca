/**
 * docs/decisions.md §20 in a backup: every post's md5 and file_size travel with the SQLite snapshot, so
 * the restored service's Danbooru API answers them as the source did; a post the backfill had not
 * reached yet (md5 NULL, its durable cursor) is still pending after the restore, and the restored
 * server's backfill fills it in with the same values.
 */
import test from 'ava';
import { cli, startChild, type ChildServer } from '../reliability/child-server.ts';
import { backUpAndRestore } from './env.ts';
import { startSource } from './source.ts';

type Facts = { id: number; md5: string | null; file_size: number | null };
const facts = async (base: string, seq: number): Promise<Facts> => {
  const res = await fetch(`${base}/posts/${seq}.json`);
  if (res.status !== 200) throw new Error(`/posts/${seq}.json: ${res.status}`);
  const { id, md5, file_size } = (await res.json()) as Facts;
  return { id, md5, file_size };
};

test('md5 and file_size survive backup and restore; a pending one is filled in after', async (t) => {
  t.timeout(180_000);
  const source = await startSource(t);
  const ids = await source.upload(3);
  const seqs = ids.map((id) => source.app.services.postRepository.getById(id)!.seq);
  const before = await Promise.all(seqs.map((seq) => facts(source.app.url, seq)));
  for (const f of before) {
    t.regex(f.md5 ?? '', /^[0-9a-f]{32}$/);
    t.true((f.file_size ?? 0) > 0);
  }
  // The last post as one from before migration 020: the backfill has not reached it (stopped here, so
  // that it stays so until the backup).
  await source.app.services.fileFacts.stop();
  source.app.services.db.prepare('UPDATE posts SET md5 = NULL, file_size = NULL WHERE seq = ?').run(seqs[2]);
  t.like(await facts(source.app.url, seqs[2]), { md5: null, file_size: null });

  const target = await backUpAndRestore(t, source.env, 'restore-file-facts');

  // Before any server runs on it, the restored database still has the one post waiting.
  const pending = await cli(['verify', '--json'], target);
  t.is(pending.code, 0, pending.stderr);
  t.is(JSON.parse(pending.stdout).fileFactsPending, 1);

  let copy: ChildServer | undefined;
  t.teardown(() => copy?.stop());
  copy = await startChild(target);
  t.deepEqual(await facts(copy.url, seqs[0]), before[0]);
  t.deepEqual(await facts(copy.url, seqs[1]), before[1]);
  // The restored server's backfill starts at once; wait for it to reach the pending post.
  const deadline = Date.now() + 60_000;
  let last = await facts(copy.url, seqs[2]);
  while (last.md5 === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await facts(copy.url, seqs[2]);
  }
  t.deepEqual(last, before[2]);
});
