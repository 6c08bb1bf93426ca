/**
 * Repeated backups into one destination: the second copies only the new posts' files and hard-links
 * the rest from the first; a deleted post leaves the next snapshot; --keep prunes old snapshots; and
 * each snapshot restores on its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { cli } from '../reliability/child-server.ts';
import { progressProblem } from '../cli/run-cli.ts';
import { destDir, isolatedEnv } from './env.ts';
import { startSource } from './source.ts';

interface Summary {
  snapshot: string;
  path: string;
  posts: number;
  files: number;
  copied: { files: number; bytes: number };
  linked: { files: number; bytes: number };
  pruned: string[];
}

const FILES_PER_POST = 3; // the image and two thumbnails

test('a second backup into the same destination copies only the new files', async (t) => {
  t.timeout(180_000);
  const source = await startSource(t);
  const first = await source.upload(5);
  const dest = destDir(t);
  // The people tables (migration 011) travel too: an app key, a favorite with its count, a preference.
  const asUser = (method: string, url: string, body: unknown) =>
    source.app.request(url, {
      method,
      headers: { ...source.user.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  t.is((await asUser('POST', '/api/account/keys', { name: 'bot', permission: 2 })).status, 201);
  t.is((await asUser('PUT', `/api/post/${first[1]}/favorite`, { shortcut: 'mine' })).status, 204);
  t.is((await asUser('PUT', '/api/account/preferences', { ratings: ['none'] })).status, 200);
  // And the conversation's (migration 018, docs/decisions.md §18): a comment, a vote, a blacklist.
  t.is((await asUser('POST', `/api/post/${first[1]}/comment`, { body: 'kept\nacross' })).status, 201);
  t.is((await asUser('PUT', `/api/post/${first[1]}/vote`, { value: -1 })).status, 200);
  t.is((await asUser('PUT', '/api/account/preferences', { blacklist: ['spiders -cute'] })).status, 200);

  const one = await cli(['backup', dest, '--json'], source.env);
  t.is(one.code, 0, one.stderr);
  const s1 = JSON.parse(one.stdout) as Summary;
  t.like(s1, {
    posts: 5,
    files: 5 * FILES_PER_POST,
    copied: { files: 5 * FILES_PER_POST },
    linked: { files: 0, bytes: 0 },
  });
  t.is(progressProblem({ ...one, ms: 0 }, 'backup files', 5 * FILES_PER_POST, 'files'), undefined);

  await source.upload(3);
  const two = await cli(['backup', dest, '--json'], source.env);
  t.is(two.code, 0, two.stderr);
  const s2 = JSON.parse(two.stdout) as Summary;
  t.like(s2, {
    posts: 8,
    files: 8 * FILES_PER_POST,
    copied: { files: 3 * FILES_PER_POST },
    linked: { files: 5 * FILES_PER_POST, bytes: s1.copied.bytes },
  });
  // The unchanged files are the first snapshot's, not copies.
  const rel = (id: string) => path.join('files', id.slice(-2), `${id}.png`);
  t.is(fs.statSync(path.join(s2.path, rel(first[0]))).ino, fs.statSync(path.join(s1.path, rel(first[0]))).ino);

  // A deletion: the next snapshot lacks the post and its files and copies nothing.
  t.is(
    (await source.app.request(`/api/post/${first[0]}`, { method: 'DELETE', headers: source.user.headers })).status,
    204,
  );
  const three = await cli(['backup', dest, '--json', '--keep', '2'], source.env);
  t.is(three.code, 0, three.stderr);
  const s3 = JSON.parse(three.stdout) as Summary;
  t.like(s3, {
    posts: 7,
    files: 7 * FILES_PER_POST,
    copied: { files: 0, bytes: 0 },
    linked: { files: 7 * FILES_PER_POST },
  });
  t.false(fs.existsSync(path.join(s3.path, rel(first[0]))));
  t.deepEqual(s3.pruned, [s1.snapshot]);
  t.false(fs.existsSync(s1.path), '--keep 2 removed the oldest snapshot');
  t.is(fs.readFileSync(path.join(dest, 'latest'), 'utf8').trim(), s3.snapshot);

  // The second snapshot restores by itself although the first, whose files it shared, is gone.
  const target = await isolatedEnv(t, 'restore-older');
  const restored = await cli(['restore', s2.path, '--json'], target);
  t.is(restored.code, 0, restored.stderr);
  t.like(JSON.parse(restored.stdout), { posts: 8, files: 8 * FILES_PER_POST, index: { posts: 8 } });
  t.is(progressProblem({ ...restored, ms: 0 }, 'restore files', 8 * FILES_PER_POST, 'files'), undefined);
  t.is(progressProblem({ ...restored, ms: 0 }, 'restore index loading', 8, 'docs'), undefined);
  const db = new Database(path.join(target.DATA_DIR, 'imgpost.sqlite'), { readonly: true });
  t.teardown(() => db.close());
  t.is(db.prepare('SELECT count(*) FROM app_keys').pluck().get(), 1);
  t.like(db.prepare('SELECT shortcut FROM favorites').get(), { shortcut: 'mine' });
  t.is(db.prepare('SELECT favorites FROM posts WHERE id = ?').pluck().get(first[1]), 1);
  t.is(db.prepare('SELECT ratings FROM user_preferences').pluck().get(), '["none"]');
  t.is(db.prepare('SELECT blacklist FROM user_preferences').pluck().get(), '["spiders -cute"]');
  t.like(db.prepare('SELECT body, author_id AS authorId FROM comments').get(), {
    body: 'kept\nacross',
    authorId: source.user.id,
  });
  t.like(db.prepare('SELECT value FROM votes').get(), { value: -1 });
  t.like(db.prepare('SELECT comments, upvotes, downvotes FROM posts WHERE id = ?').get(first[1]), {
    comments: 1,
    upvotes: 0,
    downvotes: 1,
  });
});
