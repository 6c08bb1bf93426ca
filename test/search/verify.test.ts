import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import { verify } from '../../src/search/verify.ts';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { CLI_JS } from '../helpers/compiled.ts';

let fx: SeededApp;
test.before(async () => {
  // with votes and comments (docs/decisions.md §18): their counts and commenters are in every document;
  // notes (§23): their count and time too, and the wiki and note tables verify checks (seeded pages among them)
  fx = await startSeededApp({ count: 300, seed: 23, votes: 500, comments: 200, notes: 40, wiki: { pages: 20 } });
});
test.after.always(async () => fx?.app.close());

const run = promisify(execFile);

/** `imgpost verify` as a separate process against the test app's data directory and index prefix. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    DATA_DIR: fx.app.dataDir,
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277',
    ELASTICSEARCH_INDEX_PREFIX: fx.app.services.config.elasticsearch.indexPrefix,
    LOG_LEVEL: 'warn',
    HASH_WORKERS: '1',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI_JS, 'verify', ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout, stderr: e.stderr };
  }
}

test.serial('a clean index verifies clean', async (t) => {
  const result = await verify(fx.app.services);
  t.deepEqual(result.drift, []);
  t.true(result.clean);
  t.is(result.posts, 300);
  t.is(result.documents, 300);
  const talked = fx.posts().find((p) => p.comments > 1 && p.downvotes > 0)!;
  const doc = (await fx.app.services.es.get({ index: fx.app.services.postsIndex.alias, id: talked.id }))._source;
  t.like(doc, {
    score: talked.upvotes - talked.downvotes,
    comments: talked.comments,
    commented_by: talked.commentedBy,
  });
});

test.serial('verify finds documents deleted, altered and added behind the service; --repair fixes them', async (t) => {
  const { es, postsIndex, postRepository } = fx.app.services;
  const index = (await postsIndex.aliasTarget())!;
  const [deleted, altered, sameVersion, victim] = fx.posts().filter((p) => p.text.length > 3);
  const orphanId = '01900000-0000-7000-8000-000000000000';

  await es.delete({ index, id: deleted.id, refresh: true });
  // A plain write: the document's version moves past the post's.
  await es.index({
    index,
    id: altered.id,
    document: { ...toPostDocument(altered), text: 'tampered', text_lc: 'tampered' },
    refresh: true,
  });
  // Same version as the post, different content: only a content comparison sees it.
  await es.index({
    index,
    id: sameVersion.id,
    document: { ...toPostDocument(sameVersion), tags: ['planted'] },
    version: sameVersion.version,
    version_type: 'external_gte',
    refresh: true,
  });
  await es.index({
    index,
    id: orphanId,
    document: { ...toPostDocument(victim), id: orphanId, id_lc: orphanId },
    refresh: true,
  });

  const found = await verify(fx.app.services, { recheckMs: 100 });
  t.false(found.clean);
  const kinds = Object.fromEntries(found.drift.map((d) => [d.postId, d.kind]));
  t.deepEqual(kinds, {
    [deleted.id]: 'missing',
    [altered.id]: 'stale',
    [sameVersion.id]: 'stale',
    [orphanId]: 'orphan',
  });

  // The command line sees the same and says so with its exit status.
  const before = await cli('--json');
  t.is(before.code, 1, before.stderr);
  t.is(JSON.parse(before.stdout).drift.length, 4);
  t.regex(before.stderr, /1 missing, 2 stale, 1 orphan/);

  const repaired = await cli('--repair');
  t.is(repaired.code, 0, repaired.stderr);
  t.regex(repaired.stderr, /repaired 4/);

  const after = await cli();
  t.is(after.code, 0, after.stderr);
  t.deepEqual((await verify(fx.app.services)).drift, []);

  // Searches see the records again, and later changes still reach the repaired documents
  // (the repair left index and SQLite on the same version).
  const tampered = await postJson(fx.app, '/api/post/search', {
    filter: [{ type: 'text', op: 'contains', value: 'tampered' }],
  });
  t.is(tampered.body.count, 0);
  const back = await postJson(fx.app, '/api/post/search', {
    filter: [{ type: 'id', op: 'contains', value: deleted.id }],
  });
  t.is(back.body.count, 1);
  const { db, outbox, relay } = fx.app.services;
  for (const post of [altered, sameVersion, deleted]) {
    const row = db.transaction(() => {
      const current = postRepository.getById(post.id)!;
      postRepository.updateFields(current.seq, {
        text: `edited after repair ${post.id}`,
        rating: current.rating,
        updatedAt: new Date().toISOString(),
      });
      return outbox.append(
        'update',
        { post: postRepository.getById(post.id)!, previous: { text: current.text, rating: current.rating, tags: [] } },
        null,
      );
    })();
    t.true(await relay.applyNow(row));
    const edited = await postJson(fx.app, '/api/post/search', {
      filter: [{ type: 'text', op: 'contains', value: `edited after repair ${post.id}` }],
    });
    t.is(edited.body.count, 1, post.id);
  }
  t.deepEqual((await verify(fx.app.services)).drift, []);
});

test.serial(
  'a change the outbox still holds is not drift: verify beside a server whose relay is behind is clean',
  async (t) => {
    const { relay, unitOfWork, postRepository, outbox } = fx.app.services;
    // The server's relay falls behind, as under an upload storm.
    await relay.stop();
    t.teardown(() => relay.start());
    // A background write, as a robust descriptor's is: committed, its change not yet in the index.
    const post = fx.posts()[10];
    unitOfWork.writeInBackground((tx) => {
      postRepository.bumpVersion(post.seq);
      tx.reindexed(postRepository.getBySeq(post.seq)!);
    });
    t.is(outbox.pendingFor([post.id]).length, 1);

    const r = await cli('--json');
    t.is(r.code, 0, r.stderr);
    t.deepEqual(JSON.parse(r.stdout).drift, []);
    t.is(outbox.pendingFor([post.id]).length, 0, 'the change found on its way was applied, then compared');
    t.deepEqual((await verify(fx.app.services)).drift, []);
  },
);

test.serial('verify --help and bad arguments', async (t) => {
  const help = await cli('--help');
  t.is(help.code, 0);
  t.regex(help.stdout, /Usage: imgpost verify/);
  t.is((await cli('--nope')).code, 2);
});

test.serial('verify checks the wiki and note tables and names each row that breaks their rules', async (t) => {
  const { db } = fx.app.services;
  const clean = await cli('--json');
  t.is(clean.code, 0, clean.stderr);
  t.deepEqual(JSON.parse(clean.stdout).knowledge, []);
  t.regex(clean.stderr, /the wiki and note tables: 0 problems/);

  // Broken behind the service, as a hand-edited database or a bad restore could leave them.
  const [noted, counted] = fx.posts().filter((p) => p.notes > 0);
  const noteId = db.prepare('SELECT min(id) FROM notes WHERE post_seq = ?').pluck().get(noted.seq) as number;
  const at = new Date().toISOString();
  db.pragma('foreign_keys = OFF');
  let strayId: number;
  try {
    strayId = Number(
      db
        .prepare(
          `INSERT INTO notes (post_seq, x, y, width, height, body, created_at, updated_at)
           VALUES (999999, 0, 0, 1, 1, 'stray', ?, ?)`,
        )
        .run(at, at).lastInsertRowid,
    );
    db.prepare(
      `INSERT INTO note_versions (note_id, version, x, y, width, height, body, created_at)
       VALUES (?, 1, 0, 0, 1, 1, 'stray', ?), (888888, 1, 0, 0, 1, 1, 'orphan', ?)`,
    ).run(strayId, at, at);
  } finally {
    db.pragma('foreign_keys = ON');
  }
  // a history with a gap: versions 1 and 3 of a note at version 3
  db.prepare(
    `INSERT INTO note_versions SELECT note_id, 3, x, y, width, height, body, editor_id, created_at
     FROM note_versions WHERE note_id = ? AND version = 1`,
  ).run(noteId);
  db.prepare('UPDATE notes SET version = 3 WHERE id = ?').run(noteId);
  // a page with no versions, and a page whose stored version 2 is not what it says
  const page = db.prepare(
    "INSERT INTO wiki_pages (tag, body, version, created_at, updated_at) VALUES (?, 'now', ?, ?, ?)",
  );
  page.run('verify_bare', 1, at, at);
  const changed = Number(page.run('verify_changed', 2, at, at).lastInsertRowid);
  db.prepare(
    "INSERT INTO wiki_versions (page_id, version, body, other_names, created_at) VALUES (?, 1, 'a', '[]', ?), (?, 2, 'b', '[]', ?)",
  ).run(changed, at, changed, at);
  db.prepare('UPDATE posts SET notes = notes + 1 WHERE seq = ?').run(counted.seq);

  const found = await cli('--json');
  t.is(found.code, 1, found.stderr);
  const knowledge = (JSON.parse(found.stdout) as { knowledge: { table: string; row: string; problem: string }[] })
    .knowledge;
  t.deepEqual(
    knowledge.map((p) => `${p.table} ${p.row}: ${p.problem}`),
    [
      'wiki_versions verify_bare: at version 1 with no versions stored',
      'wiki_versions verify_changed: its current version 2 is not the one stored',
      `notes ${strayId}: on post number 999999, which does not exist`,
      `note_versions ${noteId}: at version 3, its versions out of order: 2 stored, 1 to 3`,
      'note_versions 888888: versions of a note that does not exist',
      `posts ${counted.id}: counts ${counted.notes + 1} notes, has ${counted.notes}`,
    ],
  );
  t.regex(found.stderr, /the wiki and note tables: 6 problems/);
  t.regex(found.stderr, /notes \d+: on post number 999999/);

  // Put right again: clean.
  db.prepare('UPDATE posts SET notes = notes - 1 WHERE seq = ?').run(counted.seq);
  db.prepare("DELETE FROM wiki_pages WHERE tag IN ('verify_bare', 'verify_changed')").run();
  db.prepare('DELETE FROM note_versions WHERE note_id IN (?, 888888) OR (note_id = ? AND version = 3)').run(
    strayId,
    noteId,
  );
  db.prepare('DELETE FROM notes WHERE id = ?').run(strayId);
  db.prepare('UPDATE notes SET version = 1 WHERE id = ?').run(noteId);
  const after = await cli();
  t.is(after.code, 0, after.stderr);
});
