/**
 * docs/decisions.md §15, issue 24: kill -9 while an implication is being applied to 20,000 posts. After a
 * restart the job resumes from its durable cursor and finishes: every post carrying the tag has
 * the implied one once, one new version and one update event (with its queued webhook delivery)
 * per changed post, and the tag counts are exact.
 */
import fs from 'node:fs';
import test from 'ava';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.ts';
import { DATABASE_FILE, openDatabase } from '../../src/db/sqlite.ts';
import { postRepositoryOn } from '../../src/posts/post-tables.ts';
import { UserRepository } from '../../src/accounts/user-repository.ts';
import { openAccountsJob } from '../../src/roles/jobs.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { isolatedEnv } from '../backup/env.ts';
import { cli, startChild, type ChildServer } from './child-server.ts';
import path from 'node:path';

const POSTS = 20_000;

test('kill -9 mid-implication: the job resumes; one implied tag, one version and one update event per changed post', async (t) => {
  t.timeout(180_000);
  const base = await isolatedEnv(t, 'implication-crash');
  const env = { ...base, WEBHOOK_ALLOW_PRIVATE: '1', HASH_WORKERS: '1' };
  const dataDir = base.DATA_DIR!;
  fs.mkdirSync(dataDir);
  let server: ChildServer | undefined;
  t.teardown(() => server?.stop());

  // 20,000 posts through the kernel's batch seeding; few tags, so `tag_0` is on thousands of them.
  const db = openDatabase(dataDir);
  seedPosts(db, { count: POSTS, seed: 24_024, tags: 6, users: 3, clusters: 0 });
  postRepositoryOn(db, new UserRepository(db)).ensureTags(['implied_z']);
  const carrying = db
    .prepare("SELECT count(*) FROM post_tags WHERE tag_id = (SELECT id FROM tags WHERE name = 'tag_0')")
    .pluck()
    .get() as number;
  db.close();
  t.true(carrying > 3000, `${carrying} posts carry tag_0`);
  const accounts = openAccountsJob(loadConfig({ DATA_DIR: dataDir }));
  const admin = await accounts.accounts.createUser({
    name: 'tag_admin',
    password: 'correct horse battery',
    permission: 0x2 | 0x4 | 0x1000,
  });
  accounts.close();
  const auth = { 'X-Access-Key': admin.accessKey, 'Content-Type': 'application/json' };

  server = await startChild(env);
  // A webhook, so every update event queues a delivery (to a closed port: they stay queued).
  const hook = await fetch(`${server.url}/api/webhook`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ url: 'http://127.0.0.1:9/', secret: 's', events: ['update'] }),
  });
  t.is(hook.status, 201);
  const put = await fetch(`${server.url}/api/tag/tag_0/implies/implied_z`, { method: 'PUT', headers: auth });
  t.is(put.status, 200);

  // Kill once some batches have committed and the job is still under way.
  const reader = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
  const job = () =>
    reader.prepare('SELECT cursor, last_seq AS lastSeq, state, changed FROM tag_jobs').get() as {
      cursor: number;
      lastSeq: number;
      state: string;
      changed: number;
    };
  const deadline = Date.now() + 60_000;
  // A thousand posts in: well past the first pass (passes are time slices of a few dozen posts).
  while (job().cursor < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await server.kill9();
  const atKill = job();
  t.is(atKill.state, 'running', 'killed mid-job');
  t.true(atKill.cursor > 0 && atKill.cursor < atKill.lastSeq);
  t.log(`killed at post ${atKill.cursor} of ${atKill.lastSeq} (${atKill.changed} changed so far)`);

  // Progress is visible through the CLI (with the server down, too) and the API; after a restart the job finishes.
  const listed = await cli(['tag', 'jobs', '--json'], env);
  t.is(listed.code, 0, listed.stderr);
  t.like(JSON.parse(listed.stdout)[0], { tag: 'tag_0', implies: 'implied_z', state: 'running', cursor: atKill.cursor });
  server = await startChild(env);
  const seen = await (await fetch(`${server.url}/api/tag/tag_0`)).json();
  t.is(seen.jobs[0].implies, 'implied_z');
  const done = Date.now() + 120_000;
  while (job().state !== 'done' && Date.now() < done) await new Promise((r) => setTimeout(r, 50));
  t.is(job().state, 'done');
  await server.stop();
  server = undefined;

  const one = (sql: string) => reader.prepare(sql).pluck().get() as number;
  const implied = "(SELECT id FROM tags WHERE name = 'implied_z')";
  const source = "(SELECT id FROM tags WHERE name = 'tag_0')";
  t.is(
    one(`SELECT count(*) FROM post_tags WHERE tag_id = ${implied}`),
    carrying,
    'every post carrying tag_0 carries implied_z (once: the key is unique)',
  );
  t.is(
    one(
      `SELECT count(*) FROM post_tags a WHERE tag_id = ${implied} AND NOT EXISTS (SELECT 1 FROM post_tags b WHERE b.post_seq = a.post_seq AND b.tag_id = ${source})`,
    ),
    0,
  );
  t.is(one(`SELECT post_count FROM tags WHERE id = ${implied}`), carrying, 'the tag count is exact');
  t.is(job().changed, carrying, 'the job counted each changed post once');
  // Seeded posts have one version each; a changed post exactly one more, with the implied tag.
  t.is(one('SELECT count(*) FROM post_versions WHERE tags LIKE \'%"implied_z"%\''), carrying);
  t.is(one('SELECT count(*) FROM (SELECT post_seq FROM post_versions GROUP BY post_seq HAVING count(*) > 2)'), 0);
  t.is(one("SELECT count(*) FROM outbox WHERE event = 'update'"), carrying);
  t.is(
    one("SELECT count(DISTINCT post_id) FROM outbox WHERE event = 'update'"),
    carrying,
    'one update event per changed post',
  );
  t.is(
    one("SELECT count(*) FROM webhook_deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE o.event = 'update'"),
    carrying,
    'one queued delivery per changed post',
  );
  reader.close();
});
