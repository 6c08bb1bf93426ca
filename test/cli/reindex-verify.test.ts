/**
 * `imgpost reindex` and `imgpost verify` as an operator runs them (child processes, stderr a pipe)
 * against a seeded app: progress in the log, rate-limited however many batches there are, and --json
 * summaries whose numbers match SQLite and the index.
 */
import test from 'ava';
import { startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { imgpost, progressLines, progressProblem } from './run-cli.ts';

const POSTS = 240;
let fx: SeededApp;
test.before(async () => {
  fx = await startSeededApp({ count: POSTS, seed: 41 });
});
test.after.always(async () => fx?.app.close());

test.serial('reindex --json: progress while loading, the new index swapped in with every post', async (t) => {
  const { postsIndex, postRepository, es } = fx.app.services;
  const before = await postsIndex.aliasTarget();
  t.truthy(before);
  t.is(postRepository.count(), POSTS);

  // --batch 10: 24 bulk requests, so 24 updates, which the log must not get line by line.
  const r = await imgpost(fx.app, 'reindex', '--batch', '10', '--json');
  t.is(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  t.deepEqual(Object.keys(json).sort(), ['caughtUp', 'index', 'ms', 'posts', 'previous']);
  t.is(json.posts, POSTS, 'the document count is the number of posts');
  t.deepEqual(json.previous, [before]);
  t.not(json.index, before);
  t.is(typeof json.ms, 'number');

  t.is(progressProblem(r, 'reindex loading', POSTS, 'docs'), undefined);
  const lines = progressLines(r.stderr, 'reindex loading');
  t.like(lines[0], { done: 0, total: POSTS, percent: 0 }, 'the phase shows as soon as loading starts');
  t.regex(r.stderr, new RegExp(`^reindexed ${POSTS} posts into ${json.index} in [\\d.]+s`, 'm'));

  // What it says is what happened.
  t.is(await postsIndex.aliasTarget(), json.index);
  t.is((await es.count({ index: postsIndex.alias })).count, POSTS);
  // The server retires the previous index once the command has returned: closed, then deleted.
  const retired = Date.now() + 30_000;
  while (await es.indices.exists({ index: before! })) {
    if (Date.now() > retired) throw new Error(`${before} still there 30 s after the command`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The new index is merged into one segment in the background (24 bulk requests left several).
  const deadline = Date.now() + 60_000;
  let segments = Infinity;
  while (Date.now() < deadline) {
    const stats = await es.indices.stats({ index: json.index, metric: ['merge', 'segments'] });
    segments = stats._all.primaries?.merges?.current ? Infinity : (stats._all.primaries?.segments?.count ?? Infinity);
    if (segments <= 1) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.is(segments, 1, 'one segment after the background merge');
});

test.serial('verify --json: progress over posts and documents, counts and a clean result', async (t) => {
  const index = await fx.app.services.postsIndex.aliasTarget();
  const r = await imgpost(fx.app, 'verify', '--json');
  t.is(r.code, 0, r.stderr);
  t.deepEqual(JSON.parse(r.stdout), {
    index,
    posts: POSTS,
    documents: POSTS,
    drift: [],
    repaired: 0,
    clean: true,
    fileFactsPending: 0,
    // the wiki and note tables' problems (docs/decisions.md §23): none here
    knowledge: [],
  });
  t.is(progressProblem(r, 'verify posts', POSTS, 'posts'), undefined);
  t.is(progressProblem(r, 'verify documents', POSTS, 'documents'), undefined);
  // Posts are checked before documents.
  t.true(r.stderr.indexOf('verify posts [') < r.stderr.indexOf('verify documents ['));
  t.regex(
    r.stderr,
    new RegExp(`^checked ${POSTS} posts and ${POSTS} documents in ${index}: 0 missing, 0 stale, 0 orphan$`, 'm'),
  );
});

test.serial('verify --json on drift: exit status 1 and the drift in the JSON', async (t) => {
  const { es, postsIndex } = fx.app.services;
  const [gone] = fx.posts();
  await es.delete({ index: postsIndex.alias, id: gone.id, refresh: true });
  const r = await imgpost(fx.app, 'verify', '--json');
  t.is(r.code, 1, r.stderr);
  t.like(JSON.parse(r.stdout), {
    posts: POSTS,
    documents: POSTS - 1,
    clean: false,
    drift: [{ kind: 'missing', postId: gone.id }],
  });
  t.is(progressProblem(r, 'verify documents', POSTS - 1, 'documents'), undefined);
  t.regex(r.stderr, /1 missing, 0 stale, 0 orphan/);
});
