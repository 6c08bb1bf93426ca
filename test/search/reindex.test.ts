import test from 'ava';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import { reindex } from '../../src/search/reindex.ts';
import { verify } from '../../src/search/verify.ts';
import { Random } from '../../tools/seed/random.ts';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { refImageSearch, refPostSearch, type RefSelector } from '../helpers/search-reference.ts';
import { plantedRow } from '../helpers/planted-posts.ts';

let fx: SeededApp;
test.before(async () => {
  fx = await startSeededApp({ count: 3000, seed: 17 });
});
test.after.always(async () => fx?.app.close());

const NEW_TAG = 'made_during_reindex';
const rnd = new Random(5);

/** Post changes as the write path makes them: SQLite and an outbox row in one transaction, then the relay. */
function writer(fx: SeededApp) {
  const { db, postRepository, outbox, relay } = fx.app.services;
  return {
    async create(n: number): Promise<string> {
      const post = plantedRow(rnd, Date.parse('2025-03-01T00:00:00Z') + n * 1000, {
        text: `created ${n}`,
        tags: [NEW_TAG],
      });
      const row = db.transaction(() => {
        const seq = postRepository.insert(post);
        return outbox.append('create', { post: postRepository.getBySeq(seq)! }, null);
      })();
      await relay.applyNow(row);
      return post.id;
    },
    async retext(post: PostRecord, text: string): Promise<void> {
      const row = db.transaction(() => {
        const before = postRepository.getById(post.id)!;
        postRepository.updateFields(before.seq, { text, rating: before.rating, updatedAt: before.updatedAt });
        return outbox.append(
          'update',
          {
            post: postRepository.getById(post.id)!,
            previous: { text: before.text, rating: before.rating, tags: before.tags.map((t) => t.name) },
          },
          null,
        );
      })();
      await relay.applyNow(row);
    },
    async remove(id: string): Promise<void> {
      const row = db.transaction(() => {
        const post = postRepository.getById(id)!;
        postRepository.delete(post.seq);
        return outbox.append('delete', { post }, null, post.version + 1);
      })();
      await relay.applyNow(row);
    },
  };
}

test('searches keep answering with exact counts while reindex rebuilds and swaps the index and the server retires the old one; writes made meanwhile survive', async (t) => {
  const { postsIndex } = fx.app.services;
  const posts = fx.posts();
  const exclude: RefSelector = { type: 'tag', op: 'exclude', value: NEW_TAG };
  const tag = posts.find((p) => p.tags.length > 0)!.tags[0].name;
  // None of these depend on the writes below (which only touch text and the new tag).
  const probes = [
    { path: '/api/post/search', body: { filter: [exclude] } },
    {
      path: '/api/post/search?offset=2990',
      body: { filter: [exclude, { type: 'rating', value: 'none' }], order: [{ key: 'createdAt', direction: 'desc' }] },
    },
    { path: '/api/post/search?limit=5', body: { filter: [exclude, { type: 'tag', op: 'include', value: tag }] } },
    {
      path: '/image/search',
      body: {
        conditions: [
          { type: 'tagExclude', value: NEW_TAG },
          { type: 'ratingEq', value: 'moderate' },
        ],
      },
    },
  ].map((p) => ({
    ...p,
    count: p.path.startsWith('/image')
      ? refImageSearch(posts, p.body as never).length
      : refPostSearch(posts, p.body as never).length,
  }));

  const before = await postsIndex.aliasTarget();
  let searching = true;
  const failures: string[] = [];
  let searches = 0;
  const loop = async () => {
    for (let i = 0; searching; i++) {
      const probe = probes[i % probes.length];
      const res = await postJson(fx.app, probe.path, probe.body);
      searches++;
      const count = probe.path.startsWith('/image') ? res.body?.data?.total : res.body?.count;
      if (res.status !== 200 || count !== probe.count)
        failures.push(`${probe.path} -> ${res.status} ${count} (want ${probe.count})`);
    }
  };
  const loops = [loop(), loop(), loop()];

  // Writers in parallel (each write waits for its refresh, as the write path does, so one is slow).
  const w = writer(fx);
  const created: string[] = [];
  let writing = true;
  let written = 0;
  const writes = Promise.all(
    [0, 1, 2, 3].map(async (k) => {
      for (let n = k; writing; n += 4) {
        const id = await w.create(n);
        await w.retext(posts[n * 3], `rewritten during reindex ${n}`);
        if (n % 3 === 2) await w.remove(id);
        else created.push(id);
        written++;
      }
    }),
  );

  const result = await reindex(fx.app.services); // real waits: the relay must pick up the new index
  // Writes go on while the server retires the previous index (closed, then deleted, after the return).
  t.true(await fx.app.services.es.indices.exists({ index: before! }), 'retired after the command returns');
  const deadline = Date.now() + 30_000;
  while (await fx.app.services.es.indices.exists({ index: before! })) {
    if (Date.now() > deadline) throw new Error(`${before} still there 30 s after the swap`);
    await new Promise((r) => setTimeout(r, 100));
  }
  writing = false;
  await writes;
  await new Promise((r) => setTimeout(r, 1500)); // a few more searches on the new index
  searching = false;
  await Promise.all(loops);

  t.log(
    `reindex of ${result.posts} posts took ${result.ms} ms; meanwhile ${searches} searches and ${written} create/update(/delete) rounds; ${result.caughtUp} outbox rows replayed`,
  );
  t.deepEqual(failures, []);
  t.true(searches > 40, `only ${searches} searches`);
  t.not(result.index, before);
  t.is(await postsIndex.aliasTarget(), result.index);
  t.deepEqual(await postsIndex.concreteIndices(), [result.index]);

  // Every write made during the rebuild is in the new index, and nothing else drifted.
  const check = await verify(fx.app.services, { recheckMs: 500 });
  t.deepEqual(check.drift, []);
  const made = await postJson(fx.app, '/api/post/search?limit=1000', {
    filter: [{ type: 'tag', op: 'include', value: NEW_TAG }],
  });
  t.deepEqual(made.body.data.map((p: { id: string }) => p.id).sort(), [...created].sort());
  const rewritten = await postJson(fx.app, '/api/post/search', {
    filter: [{ type: 'text', op: 'contains', value: 'rewritten during reindex' }],
  });
  t.true(rewritten.body.count > 0);
});
