/**
 * Post history and revert (docs/decisions.md §9), through HTTP, with a real webhook receiver.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { UserRepository } from '../../src/accounts/user-repository.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { DATABASE_FILE } from '../../src/db/sqlite.ts';
import { VersionRepository, type VersionRecord } from '../../src/kernel/version-repository.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { imgpost } from '../cli/run-cli.ts';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { eventually, startReceiver, type Receiver } from '../webhooks/receiver.ts';

let app: TestApp;
let alice: TestUser;
let bob: TestUser;
let reader: TestUser;
let receiver: Receiver;
let seed = 5200;

test.before(async () => {
  app = await startTestApp();
  alice = await createUser(app, 0x2 | 0x4 | 0x2000);
  bob = await createUser(app, 0x4);
  reader = await createUser(app, 0x2);
  receiver = await startReceiver(200);
  const hook = await call(alice, 'POST', '/api/webhook', { url: receiver.url, secret: 'history', events: ['update'] });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status}`);
});
test.after.always(async () => {
  await app?.close();
  await receiver?.close();
});

async function call(user: TestUser | null, method: string, url: string, body?: unknown, raw?: string) {
  const res = await app.request(url, {
    method,
    headers: {
      ...(user?.headers ?? {}),
      ...(body === undefined && raw === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function upload(user: TestUser, metadata: Record<string, unknown>): Promise<{ id: string; createdAt: string }> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return res.json();
}

const versions = async (id: string, query = '') => (await call(null, 'GET', `/api/post/${id}/versions${query}`)).body;
const person = (u: TestUser) => ({ id: u.id, name: u.name });
/** Update events the receiver got for a post (default template), in order. */
const updateEvents = (seq: number) =>
  receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.event === 'update' && e.data.imageID === seq);

test.serial(
  'upload, three edits by two users, a no-op edit, revert to 1: versions, post and webhook as §9 says',
  async (t) => {
    const post = await upload(alice, { text: 'a cat', tags: ['cat', 'Animal'], rating: 'none' });
    const seq = app.services.postRepository.getById(post.id)!.seq;

    t.is((await call(alice, 'PUT', `/api/post/${post.id}`, { text: 'a black cat' })).status, 200);
    t.is(
      (await call(bob, 'PATCH', `/api/post/${post.id}`, { tags: ['cat', 'black', 'cat'], rating: 'violent' })).status,
      200,
    );
    t.is(
      (
        await call(alice, 'PUT', `/api/post/${post.id}`, {
          text: 'a black cat, asleep',
          tags: ['cat', 'black', 'asleep'],
        })
      ).status,
      200,
    );
    // Same values, tags in another order: an update event, but no version.
    const noop = await call(bob, 'PUT', `/api/post/${post.id}`, {
      text: 'a black cat, asleep',
      tags: ['asleep', 'cat', 'black'],
      rating: 'violent',
    });
    t.is(noop.status, 200);
    t.is((await versions(post.id)).count, 4);

    const reverted = await call(bob, 'POST', `/api/post/${post.id}/revert`, { version: 1 });
    t.is(reverted.status, 200);
    t.like(reverted.body, { id: post.id, text: 'a cat', rating: 'none' });
    t.deepEqual(
      reverted.body.tags.map((x: { name: string }) => x.name),
      ['Animal', 'cat'],
    );
    t.deepEqual((await call(null, 'GET', `/api/post/${post.id}`)).body, reverted.body);

    const list = await versions(post.id);
    t.is(list.count, 5);
    t.deepEqual(
      list.data.map((v: Record<string, unknown>) => ({ ...v, createdAt: typeof v.createdAt })),
      [
        {
          version: 5,
          source: '',
          parentId: null,
          text: 'a cat',
          rating: 'none',
          tags: ['Animal', 'cat'],
          editor: person(bob),
          createdAt: 'string',
          changes: {
            text: { old: 'a black cat, asleep', new: 'a cat' },
            tags: { old: ['asleep', 'black', 'cat'], new: ['Animal', 'cat'] },
            rating: { old: 'violent', new: 'none' },
          },
        },
        {
          version: 4,
          source: '',
          parentId: null,
          text: 'a black cat, asleep',
          rating: 'violent',
          tags: ['asleep', 'black', 'cat'],
          editor: person(alice),
          createdAt: 'string',
          changes: {
            text: { old: 'a black cat', new: 'a black cat, asleep' },
            tags: { old: ['black', 'cat'], new: ['asleep', 'black', 'cat'] },
          },
        },
        {
          version: 3,
          source: '',
          parentId: null,
          text: 'a black cat',
          rating: 'violent',
          tags: ['black', 'cat'],
          editor: person(bob),
          createdAt: 'string',
          changes: { tags: { old: ['Animal', 'cat'], new: ['black', 'cat'] }, rating: { old: 'none', new: 'violent' } },
        },
        {
          version: 2,
          source: '',
          parentId: null,
          text: 'a black cat',
          rating: 'none',
          tags: ['Animal', 'cat'],
          editor: person(alice),
          createdAt: 'string',
          changes: { text: { old: 'a cat', new: 'a black cat' } },
        },
        {
          version: 1,
          source: '',
          parentId: null,
          text: 'a cat',
          rating: 'none',
          tags: ['Animal', 'cat'],
          editor: person(alice),
          createdAt: post.createdAt,
        },
      ].map((v) => ({ ...v, createdAt: typeof v.createdAt })),
    );
    t.is(list.data[4].createdAt, post.createdAt);
    t.is(list.data[0].createdAt, reverted.body.updatedAt);
    const times = list.data.map((v: { createdAt: string }) => v.createdAt);
    t.deepEqual([...times].sort().reverse(), times, 'newest first');

    // Webhook: five update events (the no-op too), the revert's last, by bob, with its Changes.
    await eventually(() => updateEvents(seq).length === 5);
    const events = updateEvents(seq);
    t.deepEqual(events[3].data.changes, {}, 'the no-op edit: an update with empty changes');
    const last = events[4];
    t.deepEqual(last.initiator, { id: bob.id, username: bob.name });
    t.deepEqual(last.data.changes, {
      text: { old: 'a black cat, asleep', new: 'a cat' },
      tags: { old: ['asleep', 'black', 'cat'], new: ['Animal', 'cat'] },
      rating: { old: 'violet', new: 'none' },
    });
    t.like(last.data, { text: 'a cat', rating: 'none', tags: ['Animal', 'cat'] });

    // Reverting to what the post already is: an update event, no version.
    t.is((await call(alice, 'POST', `/api/post/${seq}/revert`, { version: 5 })).status, 200);
    t.is((await versions(post.id)).count, 5);
    await eventually(() => updateEvents(seq).length === 6);
    t.deepEqual(updateEvents(seq)[5].data.changes, {});

    // Paging, by number as well as by UUID.
    t.deepEqual(
      (await versions(String(seq), '?offset=1&limit=2')).data.map((v: { version: number }) => v.version),
      [4, 3],
    );
    const tail = await versions(post.id, '?offset=4&limit=10');
    t.deepEqual(
      tail.data.map((v: { version: number }) => v.version),
      [1],
    );
    t.false('changes' in tail.data[0], 'version 1 has no changes');
    t.deepEqual(
      (await versions(post.id, '?offset=3&limit=1')).data[0].changes,
      { text: { old: 'a cat', new: 'a black cat' } },
      "changes of a page's last row",
    );
    t.deepEqual(await versions(post.id, '?limit=0'), { count: 5, data: [] });
    t.deepEqual(await versions(post.id, '?offset=50'), { count: 5, data: [] });
  },
);

test.serial(
  'versions list: limit default 24, above 100 lowered to 100, bad values 400, unknown post 404',
  async (t) => {
    const post = await upload(alice, { text: 'edit 0' });
    // 105 more versions written straight to the table: going through HTTP would wait on the index each time.
    const seq = app.services.postRepository.getById(post.id)!.seq;
    const repo = new VersionRepository(app.services.db, new UserRepository(app.services.db));
    app.services.db.transaction(() => {
      for (let i = 1; i <= 105; i++)
        repo.append(seq, {
          text: `edit ${i}`,
          rating: 'none',
          tags: [],
          editorId: alice.id,
          createdAt: new Date().toISOString(),
        });
    })();
    t.is((await versions(post.id)).data.length, 24);
    const big = await versions(post.id, '?limit=1000');
    t.is(big.count, 106);
    t.is(big.data.length, 100);
    t.is(big.data[0].version, 106);
    for (const bad of ['limit=-1', 'offset=-1', 'limit=1.5', 'offset=x', 'limit=', 'limit=1e3']) {
      const res = await call(null, 'GET', `/api/post/${post.id}/versions?${bad}`);
      t.is(res.status, 400, bad);
      t.true(Array.isArray(res.body), bad);
    }
    for (const ref of ['nope', '0', '99999999', '01234567-89ab-7def-8123-456789abcdef']) {
      const res = await call(null, 'GET', `/api/post/${ref}/versions`);
      t.is(res.status, 404, ref);
      t.deepEqual(res.body, { error: 'post not found' });
    }
  },
);

test.serial('revert: needs the edit bit; bad bodies 400; missing post or version 404; nothing changes', async (t) => {
  const post = await upload(alice, { text: 'original', tags: ['x'] });
  await call(alice, 'PUT', `/api/post/${post.id}`, { text: 'changed' });
  const revert = (user: TestUser | null, body?: unknown, raw?: string, id = post.id) =>
    call(user, 'POST', `/api/post/${id}/revert`, body, raw);
  t.is((await revert(null, { version: 1 })).status, 401);
  t.is((await revert(reader, { version: 1 })).status, 403);
  for (const [body, raw] of [
    [undefined, undefined],
    [undefined, 'null'],
    [{}],
    [{ version: 0 }],
    [{ version: -1 }],
    [{ version: 1.5 }],
    [{ version: '1' }],
    [{ version: 1, text: 'x' }],
    [[1]],
  ] as [unknown, string?][]) {
    const res = await revert(alice, body, raw);
    t.is(res.status, 400, JSON.stringify(body ?? raw ?? 'no body'));
    t.true(Array.isArray(res.body));
  }
  const noVersion = await revert(alice, { version: 3 });
  t.is(noVersion.status, 404);
  t.deepEqual(noVersion.body, { error: 'version not found' });
  const noPost = await revert(alice, { version: 1 }, undefined, '01234567-89ab-7def-8123-456789abcdef');
  t.is(noPost.status, 404);
  t.deepEqual(noPost.body, { error: 'post not found' });
  t.is((await versions(post.id)).count, 2);
  t.like((await call(null, 'GET', `/api/post/${post.id}`)).body, { text: 'changed' });
  t.like((await revert(alice, { version: 1 })).body, { text: 'original' });
});

test.serial('deleting a post removes its versions', async (t) => {
  const post = await upload(alice, { text: 'short-lived', tags: ['gone'] });
  await call(bob, 'PUT', `/api/post/${post.id}`, { text: 'edited' });
  const seq = app.services.postRepository.getById(post.id)!.seq;
  const rows = () => app.services.db.prepare('SELECT count(*) FROM post_versions WHERE post_seq = ?').pluck().get(seq);
  t.is(rows(), 2);
  t.is((await call(alice, 'DELETE', `/api/post/${post.id}`)).status, 204);
  t.is(rows(), 0);
  t.is((await call(null, 'GET', `/api/post/${post.id}/versions`)).status, 404);
});

test.serial('a removed account leaves its versions with no editor', async (t) => {
  const gone = await createUser(app, 0x4);
  const post = await upload(alice, { text: 'before' });
  t.is((await call(gone, 'PUT', `/api/post/${post.id}`, { text: 'by someone who leaves' })).status, 200);
  t.like((await versions(post.id)).data[0], { version: 2, editor: person(gone) });
  app.services.accounts.remove(gone.name);
  const list = await versions(post.id);
  t.like(list.data[0], { version: 2, editor: null, text: 'by someone who leaves' });
  t.like(list.data[1], { version: 1, editor: person(alice) });
});

test.serial('an import records version 1, by no editor', async (t) => {
  const dir = tempDir('history-import');
  fs.writeFileSync(path.join(dir, 'a.png'), await randomImage(seed++));
  const result = await imgpost(app, 'import', dir, '--json');
  t.is(result.code, 0, result.stderr);
  t.like(JSON.parse(result.stdout), { bare: 1 });
  const id = (await call(null, 'GET', '/api/post/?limit=1')).body.data[0].id;
  const list = await versions(id);
  t.is(list.count, 1);
  t.like(list.data[0], { version: 1, text: '', rating: 'none', tags: [], editor: null });
});

test('a database from before the migration gets version 1 for every post', async (t) => {
  const dataDir = tempDir('history-legacy');
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  migrate(
    db,
    listMigrations().filter((m) => m.version <= 4),
  );
  db.prepare(
    "INSERT INTO users (id, name, password_hash, access_key, access_key_digest, permission, created_at) VALUES (7, 'olduser', 'x', 'k', x'00', 6, '2020-01-01T00:00:00.000Z')",
  ).run();
  const insert = db.prepare(
    `INSERT INTO posts (seq, id, text, rating, ext, mime, width, height, hash, uploader_id, created_at, updated_at, version)
     VALUES (?, ?, ?, ?, 'png', 'image/png', 1, 1, ?, ?, '2020-01-01T00:00:00.000Z', ?, 3)`,
  );
  const legacy = [
    {
      seq: 1,
      id: '01900000-0000-7000-8000-000000000001',
      text: 'old one',
      rating: 'moderate',
      owner: 7,
      updated: '2021-02-03T04:05:06.789Z',
      tags: ['zeta', 'Alpha', 'mid'],
    },
    {
      seq: 2,
      id: '01900000-0000-7000-8000-000000000002',
      text: '',
      rating: 'none',
      owner: null,
      updated: '2020-01-01T00:00:00.000Z',
      tags: [],
    },
    {
      seq: 3,
      id: '01900000-0000-7000-8000-000000000003',
      text: 'violent one',
      rating: 'violent',
      owner: null,
      updated: '2022-01-01T00:00:00.000Z',
      tags: ['mid'],
    },
  ];
  for (const p of legacy) {
    insert.run(p.seq, p.id, p.text, p.rating, '0'.repeat(64), p.owner, p.updated);
    for (const name of p.tags) {
      db.prepare('INSERT INTO tags (name) VALUES (?) ON CONFLICT DO NOTHING').run(name);
      db.prepare('INSERT INTO post_tags (post_seq, tag_id) SELECT ?, id FROM tags WHERE name = ?').run(p.seq, name);
    }
  }
  db.close();

  const old = await startTestApp({}, { dataDir });
  t.teardown(async () => {
    await old.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  for (const p of legacy) {
    const list = await (await old.request(`/api/post/${p.id}/versions`)).json();
    t.deepEqual(
      list,
      {
        count: 1,
        data: [
          {
            version: 1,
            text: p.text,
            rating: p.rating,
            tags: [...p.tags].sort(),
            editor: null,
            createdAt: p.updated,
            source: '',
            parentId: null,
          },
        ],
      },
      p.id,
    );
  }
  // The next edit is version 2, with changes against the migrated state.
  const editor = await createUser(old, 0x4);
  const res = await old.request(`/api/post/${legacy[0].id}`, {
    method: 'PUT',
    headers: { ...editor.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ tags: ['mid'] }),
  });
  t.is(res.status, 200);
  const after = await (await old.request(`/api/post/${legacy[0].id}/versions`)).json();
  t.is(after.count, 2);
  t.like(after.data[0], {
    version: 2,
    source: '',
    parentId: null,
    editor: { id: editor.id, name: editor.name },
    changes: { tags: { old: ['Alpha', 'mid', 'zeta'], new: ['mid'] } },
  });
});

test('posts written in bulk by the seeder have version 1 from their state', async (t) => {
  const db = new Database(path.join(tempDir(), 'seeded.sqlite'));
  t.teardown(() => db.close());
  migrate(db);
  const { count } = seedPosts(db, { count: 50, tags: 20, seed: 7 });
  const versions = new VersionRepository(db, new UserRepository(db));
  const rows = db.prepare('SELECT seq, text, rating FROM posts').all() as {
    seq: number;
    text: string;
    rating: string;
  }[];
  t.is(rows.length, count);
  for (const row of rows) {
    t.is(versions.count(row.seq), 1);
    t.like(versions.page(row.seq, 0, 10)[0], {
      number: 1,
      text: row.text,
      rating: row.rating as VersionRecord['rating'],
      editor: null,
    });
  }
  t.is(versions.backfillFirstVersions(), 0, 'a second pass adds nothing');
  // No image files: their descriptors are stored as unreadable, so a server started on them has no
  // backfill to run (and no reindex of every post behind what a test or benchmark measures).
  t.is(db.prepare('SELECT count(*) FROM posts WHERE robust IS NULL').pluck().get(), 0);
  const again = seedPosts(db, { count: 5, tags: 20, seed: 8 });
  t.is(
    db.prepare('SELECT count(*) FROM posts WHERE robust IS NULL').pluck().get(),
    0,
    `and ${again.count} more seeded later too`,
  );
});
