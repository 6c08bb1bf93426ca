/**
 * docs/decisions.md §19, issue 38: kill -9 during a 1,000-post pool reorder and during the delete of a
 * parent with 500 children, on the real server. Each is one unit of work: after a restart the pool is
 * the old order or the new one (in SQLite and in the index, page by page), never a mix; the parent is
 * gone with every child cleared, or there with every child still under it; each child's latest
 * version agrees with it; and `imgpost verify` finds the index clean.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.ts';
import { DATABASE_FILE, openDatabase } from '../../src/db/sqlite.ts';
import { openAccountsJob } from '../../src/roles/jobs.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { isolatedEnv } from '../backup/env.ts';
import { pool as inParallel } from '../helpers/search-fixture.ts';
import { cli, startChild, type ChildServer } from './child-server.ts';

const POOL = 1000;
const CHILDREN = 500;

test('kill -9 mid pool reorder and mid parent delete: old or new, never a mix; history and index agree', async (t) => {
  t.timeout(300_000);
  const env = await isolatedEnv(t, 'organization-crash');
  const dataDir = env.DATA_DIR!;
  fs.mkdirSync(dataDir);
  let server: ChildServer | undefined;
  t.teardown(() => server?.stop());

  const db = openDatabase(dataDir);
  // The pool's posts, then the parent and its children, seeded with the parent set: through HTTP, 500 edits
  // each waiting for the index's refresh took half a minute of a 2-core box before the test began.
  seedPosts(db, {
    count: POOL + CHILDREN + 1,
    seed: 38_038,
    tags: 5,
    users: 2,
    clusters: 0,
    family: { parent: POOL, from: POOL + 1, count: CHILDREN },
  });
  const ids = db.prepare('SELECT id FROM posts ORDER BY seq').pluck().all() as string[];
  db.close();
  const accounts = openAccountsJob(loadConfig({ DATA_DIR: dataDir }));
  const admin = await accounts.accounts.createUser({
    name: 'organizer',
    password: 'correct horse battery',
    permission: 0x2 | 0x4 | 0x2000,
  });
  accounts.close();
  t.is((await cli(['reindex'], env)).code, 0);
  const auth = { 'X-Access-Key': admin.accessKey, 'Content-Type': 'application/json' };
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server!.url}${url}`, {
      method,
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
  };
  const reader = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
  t.teardown(() => reader.close());
  const one = (sql: string, ...args: unknown[]) =>
    reader
      .prepare(sql)
      .pluck()
      .get(...args) as number;
  const unindexed = () => one('SELECT count(*) FROM outbox WHERE indexed_at IS NULL');

  server = await startChild(env);
  const first = ids.slice(0, POOL);
  const pool = await api('POST', '/api/pool', { name: 'The long comic', postIds: first });
  t.is(pool.status, 201);
  const poolId = pool.body.id as number;
  const parent = ids[POOL];
  const children = ids.slice(POOL + 1);
  const underIt = await fetch(`${server.url}/image/search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      conditions: [{ type: 'childOf', value: String(one('SELECT seq FROM posts WHERE id = ?', parent)) }],
    }),
  });
  t.is((await underIt.json()).data.total, CHILDREN, 'the children, as seeded and indexed');

  /** Sends the write, kills the server once its change has committed but is not all indexed yet (or at `ms`). */
  async function killDuring(method: string, url: string, body: unknown, ms?: number): Promise<string> {
    const before = one('SELECT max(id) FROM outbox');
    const sent = fetch(`${server!.url}${url}`, { method, headers: auth, body: JSON.stringify(body) }).then(
      () => 'answered',
      () => 'cut',
    );
    let state = 'before the commit';
    const deadline = Date.now() + 60_000;
    if (ms !== undefined) await new Promise((r) => setTimeout(r, ms));
    else
      while (Date.now() < deadline) {
        if (one('SELECT count(*) FROM outbox WHERE id > ? AND indexed_at IS NULL', before) > 0) {
          state = 'committed, index under way';
          break;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
    await server!.kill9();
    t.log(`${method} ${url}: killed ${ms === undefined ? state : `after ${ms} ms`}; the request ${await sent}`);
    server = await startChild(env);
    // The relay brings the index in step after the restart.
    const settled = Date.now() + 120_000;
    while (unindexed() > 0 && Date.now() < settled) await new Promise((r) => setTimeout(r, 50));
    t.is(unindexed(), 0, 'the outbox drained');
    return state;
  }

  /** The pool's order in SQLite, and as `orderBy: "pool"` pages through it (24 a page). */
  async function orders(): Promise<{ stored: string[]; searched: number[]; seqs: number[] }> {
    const stored = (await api('GET', `/api/pool/${poolId}`)).body.postIds as string[];
    const pages = await inParallel(
      8,
      Array.from({ length: Math.ceil(POOL / 24) }, (_, i) => async () => {
        const res = await fetch(`${server!.url}/image/search?offset=${i * 24}&limit=24`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ conditions: [{ type: 'pool', value: String(poolId) }], orderBy: 'pool' }),
        });
        return ((await res.json()).data.images as { id: number }[]).map((im) => im.id);
      }),
    );
    const seqs = stored.map((id) => one('SELECT seq FROM posts WHERE id = ?', id));
    return { stored, searched: pages.flat(), seqs };
  }

  const reversed = [...first].reverse();
  for (const [target, ms] of [
    [reversed, undefined],
    [first, 15],
  ] as const) {
    const old = (await orders()).stored;
    await killDuring('PATCH', `/api/pool/${poolId}`, { postIds: target }, ms);
    const now = await orders();
    t.true(
      JSON.stringify(now.stored) === JSON.stringify(old) || JSON.stringify(now.stored) === JSON.stringify(target),
      'the old order or the new one',
    );
    t.deepEqual(now.searched, now.seqs, 'the index pages through the same order');
  }

  // The parent's delete: 500 children, each an edit with a version, in the delete's one transaction.
  const parentSeq = one('SELECT seq FROM posts WHERE id = ?', parent);
  await killDuring('DELETE', `/api/post/${parent}`, undefined);
  const gone = one('SELECT count(*) FROM posts WHERE id = ?', parent) === 0;
  const underParent = one('SELECT count(*) FROM posts WHERE parent_seq = ?', parentSeq);
  t.is(underParent, gone ? 0 : CHILDREN, gone ? 'deleted: every child cleared' : 'not deleted: every child kept');
  // Each child's latest version names the parent it has now.
  const disagreeing = one(
    `SELECT count(*) FROM posts p JOIN post_versions v ON v.post_seq = p.seq
     AND v.number = (SELECT max(number) FROM post_versions WHERE post_seq = p.seq)
     WHERE p.id IN (SELECT value FROM json_each(?))
     AND v.parent_id IS NOT (SELECT pp.id FROM posts pp WHERE pp.seq = p.parent_seq)`,
    JSON.stringify(children),
  );
  t.is(disagreeing, 0, "every child's history agrees with it");
  t.is(
    one(
      'SELECT count(*) FROM post_versions v JOIN posts p ON p.seq = v.post_seq WHERE p.id IN (SELECT value FROM json_each(?))',
      JSON.stringify(children),
    ),
    CHILDREN * (gone ? 2 : 1),
    'one version for the seeding (with the parent), and one for its clearing when deleted',
  );
  const childOf = await fetch(`${server.url}/image/search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ conditions: [{ type: 'childOf', value: String(parentSeq) }] }),
  });
  t.is((await childOf.json()).data.total, gone ? 0 : CHILDREN, 'the index agrees');

  await server.stop();
  server = undefined;
  const verified = await cli(['verify', '--json'], env);
  t.is(verified.code, 0, `imgpost verify: ${verified.stdout.slice(0, 2000)} ${verified.stderr.slice(0, 2000)}`);
  t.true(JSON.parse(verified.stdout).clean);
});
