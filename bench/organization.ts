/**
 * Section `organization` of `npm run bench` (issue 38, docs/decisions.md §19): what pools cost, on one
 * corpus (default 1M posts with 10k pools of 1 to 1,000 posts; `--sizes` picks another and scales the
 * pools with it), each figure next to its anchor in the same run, over HTTP against the server process:
 *  - a pool's page (`/image/search` `{ pool }` with `orderBy: "pool"`, 24 a page as the gallery asks)
 *    against a page of a tag search (tagInclude, by upload date) whose tag matches about as many posts
 *    as the pool holds; the two interleaved (request by request at one client, window by window at 8);
 *  - a 1,000-post reorder (`PATCH /api/pool/{id}` with a shuffled `postIds`: every post moves, each a
 *    new search document), its answer and when the pool first reads in the new order, against a
 *    reorder of the same pool that swaps two neighbours; and the pool's page read before and after
 *    the reorders (what they leave in the index).
 */
import { Random } from '../tools/seed/random.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { reindexCorpus, sectionScale } from './lib/corpus.ts';
import { sectionParams } from './params.ts';
import { ratio, show, type Figure } from './lib/figures.ts';
import { check, sampleLatency } from './lib/http-load.ts';
import { call, json } from './lib/requests.ts';
import { pairTakingTurns } from './lib/turns.ts';
import type { BenchSection, SectionRow } from './lib/section.ts';
import { standalone, type Standalone } from './lib/standalone.ts';
import { fmt, maxOf, median, nowMs, summarize } from './lib/stats.ts';

/** A pool and the tag whose post count is nearest its size. */
interface Pair {
  pool: number;
  size: number;
  tag: string;
  count: number;
}

/** One timed pool write: its answer, and when the pool first read in the new order. */
interface Reorder {
  ms: number;
  searchableMs: number;
  early: boolean;
}

const PAGE = 24;
const POOL_MAX = 1000;
/** one pool per 100 posts: 10k at 1M, as issue 38 asks */
const POSTS_PER_POOL = 100;
/** a pair's tag count within this share of the pool's size */
const CLOSE = 0.15;

/** Fisher-Yates with the seeded PRNG, in place. */
function shuffle<T>(items: T[], rnd: Random): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rnd.int(0, i);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Seeded posts and pools, an account with the edit bit, one reindex; the pools paired with tags. */
async function corpus(s: Standalone, posts: number, log: (line: string) => void) {
  const t0 = nowMs();
  const pools = Math.max(10, Math.round(posts / POSTS_PER_POOL));
  seedPosts(s.services.db, { count: posts, seed: 1, pools: { count: pools, maxSize: POOL_MAX } });
  const db = s.services.db;
  const admin = await s.services.accounts.createUser({
    name: 'bench_editor',
    password: 'correct horse battery',
    permission: 0x2 | 0x4,
  });
  const memberships = db.prepare('SELECT count(*) FROM pool_posts').pluck().get() as number;
  log(`seeded ${posts} posts in ${pools} pools (${memberships} places) in ${fmt((nowMs() - t0) / 1000)} s; reindexing`);
  const t1 = nowMs();
  await reindexCorpus(s.services);
  const reindexSeconds = (nowMs() - t1) / 1000;
  const sizes = db
    .prepare('SELECT pool_id AS id, count(*) AS n FROM pool_posts GROUP BY pool_id HAVING n >= ? ORDER BY pool_id')
    .all(PAGE) as { id: number; n: number }[];
  const tags = db.prepare('SELECT name, post_count AS n FROM tags WHERE post_count > 0 ORDER BY post_count').all() as {
    name: string;
    n: number;
  }[];
  const nearest = (n: number) => {
    let lo = 0;
    let hi = tags.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tags[mid].n < n) lo = mid + 1;
      else hi = mid;
    }
    const below = tags[Math.max(0, lo - 1)];
    return Math.abs(below.n - n) < Math.abs(tags[lo].n - n) ? below : tags[lo];
  };
  const all: Pair[] = sizes.map((p) => {
    const t = nearest(p.n);
    return { pool: p.id, size: p.n, tag: t.name, count: t.n };
  });
  // Pools whose size some tag matches closely; a small corpus has few such tags, so the nearest at worst.
  const close = all.filter((p) => Math.abs(p.count / p.size - 1) <= CLOSE);
  const chosen = shuffle(close.length >= 20 ? close : [...all], new Random(38)).slice(0, 200);
  return { pools, memberships, reindexSeconds, admin, pairs: chosen };
}

export const section: BenchSection = {
  name: 'organization',
  summary: "pools at 1M posts: a pool's page by orderBy pool, a 1,000-post reorder (issue 38)",
  async run({ quick, sizes, log }) {
    const { posts, samples, ms, size } = sectionScale({ quick, sizes });
    const { reorders } = sectionParams(quick).organization;
    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('organization', false, async (s) => {
      const c = await corpus(s, posts, log);
      const url = await s.startServer();
      const search = async (body: unknown, offset: number) =>
        JSON.parse(await call(`${url}/image/search?limit=${PAGE}&offset=${offset}`, json('POST', body), 200)) as {
          data: { total: number; images: { id: number }[] };
        };
      const poolBody = (pool: number) => ({ conditions: [{ type: 'pool', value: String(pool) }], orderBy: 'pool' });
      const tagBody = (tag: string) => ({ conditions: [{ type: 'tagInclude', value: tag }], orderBy: 'uploadDate' });
      // Any page of the pool (or of the tag's posts), as a reader paging through it.
      const pageOf = (i: number, n: number) => ((i * 7919) % Math.ceil(n / PAGE)) * PAGE;

      log(`pool pages against tag-search pages: ${c.pairs.length} pairs`);
      const [pooled, tagged] = await pairTakingTurns(
        [
          async (i) => {
            const p = c.pairs[i % c.pairs.length];
            await search(poolBody(p.pool), pageOf(i, p.size));
          },
          async (i) => {
            const p = c.pairs[i % c.pairs.length];
            await search(tagBody(p.tag), pageOf(i, p.count));
          },
        ],
        { samples, durationMs: ms, concurrency: 8 },
      );
      const byPool: Figure = { latency: summarize(pooled.latencies), rps: pooled.rps };
      const byTag: Figure = { latency: summarize(tagged.latencies), rps: tagged.rps };

      log('1,000-post reorders against two-post swaps');
      const db = s.services.db;
      const rnd = new Random(380);
      const members = shuffle(db.prepare('SELECT seq FROM posts').pluck().all() as number[], rnd).slice(0, POOL_MAX);
      const write = async (method: 'POST' | 'PATCH', path: string, body: unknown, expect: number) => {
        const t0 = nowMs();
        const res = JSON.parse(
          await call(`${url}${path}`, json(method, body, { 'X-Access-Key': c.admin.accessKey }), expect),
        ) as {
          id: number;
        };
        return { t0, ms: nowMs() - t0, id: res.id };
      };
      const created = await write('POST', '/api/pool', { name: 'Bench reorder', postIds: members.map(String) }, 201);
      const poolPath = `/api/pool/${created.id}`;
      let order = members;
      // A write answers once its change is searchable, or after the relay's bound of 6 s
      // (src/elasticsearch/outbox-relay.ts) with the change still on its way: the pool's first and last pages are
      // read until they show the new order, and the time from the request to then is kept.
      const pageIds = async (offset: number) =>
        (await search(poolBody(created.id), offset)).data.images.map((im) => im.id).join();
      const searchable = async (what: string, t0: number) => {
        const want = [order.slice(0, PAGE).join(), order.slice(-PAGE).join()];
        const deadline = nowMs() + 120_000;
        let reads = 0;
        while ((await pageIds(0)) !== want[0] || (await pageIds(order.length - PAGE)) !== want[1]) {
          if (nowMs() > deadline) throw new Error(`${what}: the pool does not read in its new order after 2 minutes`);
          reads++;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // `early`: the answer came before the new order could be read (the relay's bound cut the wait short).
        return { searchableMs: nowMs() - t0, early: reads > 0 };
      };
      const createdSearchable = (await searchable('created', created.t0)).searchableMs;
      const readPool = (i: number) => search(poolBody(created.id), pageOf(i, POOL_MAX)).then(() => undefined);
      await sampleLatency(Math.min(100, samples), 30_000, readPool);
      const before = summarize(check(await sampleLatency(samples, ms * 3, readPool), 'pool reads before').latencies);
      const deleted = async () => {
        const stats = await s.services.es.indices.stats({ index: s.services.postsIndex.alias, metric: 'docs' });
        return stats._all.primaries?.docs?.deleted ?? 0;
      };
      const deletedBefore = await deleted();
      const shuffles: Reorder[] = [];
      const swaps: Reorder[] = [];
      const patch = async (what: string, into: typeof shuffles) => {
        const w = await write('PATCH', poolPath, { postIds: order.map(String) }, 200);
        into.push({ ms: w.ms, ...(await searchable(what, w.t0)) });
      };
      for (let r = 0; r < reorders; r++) {
        order = shuffle([...order], rnd);
        await patch(`reorder ${r}`, shuffles);
        const k = rnd.int(0, PAGE - 2);
        order = [...order];
        [order[k], order[k + 1]] = [order[k + 1], order[k]];
        await patch(`swap ${r}`, swaps);
      }
      const deletedAfter = await deleted();
      const after = summarize(check(await sampleLatency(samples, ms * 3, readPool), 'pool reads after').latencies);

      const timing = (xs: Reorder[]) => {
        const answered = xs.map((x) => x.ms);
        const seen = xs.map((x) => x.searchableMs);
        const early = xs.filter((x) => x.early).length;
        return (
          `answered p50 ${fmt(median(answered))} ms, max ${fmt(maxOf(answered))} ms; read in the new order after p50 ${fmt(median(seen))} ms, max ${fmt(maxOf(seen))} ms (n=${xs.length}` +
          `${early ? `; ${early} answered before searchable` : ''})`
        );
      };
      const pairing = median(c.pairs.map((p) => p.count / p.size));
      const corpusText = `${size}, ${c.pools.toLocaleString('en-US')} pools, ${c.memberships.toLocaleString('en-US')} places`;
      const rows: SectionRow[] = [
        {
          figure: "A pool's page (`/image/search` pool + orderBy pool, 24 a page), 1 client / 8 clients",
          corpus: corpusText,
          ours: show(byPool),
          anchor: `tagInclude by upload date, a tag of about the pool's size: ${show(byTag)}`,
          ratio: ratio(byPool, byTag),
          goal: 'none stated (compare)',
          met: 'none',
        },
        {
          figure: 'A 1,000-post pool reorder (`PATCH /api/pool/{id}` postIds shuffled), over HTTP',
          corpus: corpusText,
          ours: `${timing(shuffles)}; ${fmt(POOL_MAX / (median(shuffles.map((x) => x.ms)) / 1000))} posts/s at the p50`,
          anchor: `the same pool, two neighbours swapped: ${timing(swaps)}`,
          ratio: `${fmt(median(shuffles.map((x) => x.ms)) / median(swaps.map((x) => x.ms)))}× the swap`,
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: "The reordered pool's page after the reorders",
          corpus: corpusText,
          ours: `p50 ${fmt(after.p50)} ms, p99 ${fmt(after.p99)} ms (n=${after.n}); Lucene documents marked deleted: ${deletedAfter.toLocaleString('en-US')}`,
          anchor: `before them: p50 ${fmt(before.p50)} ms, p99 ${fmt(before.p99)} ms (n=${before.n}); deleted: ${deletedBefore.toLocaleString('en-US')}`,
          ratio: `p50 ${fmt(after.p50 / before.p50)}×, p99 ${fmt(after.p99 / before.p99)}× the before`,
          goal: 'none stated (report)',
          met: 'none',
        },
      ];
      out = {
        title: `Organization: pools (issue 38), ${size} posts`,
        rows,
        notes: [
          `One corpus: the seeder's ${size} posts and 3,000 tag names, with ${c.pools.toLocaleString('en-US')} pools of 1 to ${POOL_MAX.toLocaleString('en-US')} posts each (uniform; ${c.memberships.toLocaleString('en-US')} places in all, each a nested entry of its post's search document), one reindex (${fmt(c.reindexSeconds)} s). Requests go over HTTP to the server process; one-client figures are ${samples} samples of each kind after a warm-up, req/s is two ${ms / 2000}-s windows of 8 clients for each kind, alternating.`,
          `The pages compared: ${c.pairs.length} pools of at least ${PAGE} posts, each paired with the tag whose post count is nearest its size (median tag count / pool size ${fmt(pairing)}); request i reads the same page number of pair i's pool (ascending by position) and of its tag's search (newest first). The gallery's search page asks for 24 a page; no facets are asked.`,
          `The reorders: one pool of ${POOL_MAX.toLocaleString('en-US')} random posts made over HTTP (answered in ${fmt(created.ms)} ms, read in order after ${fmt(createdSearchable)} ms), then ${reorders} rounds of a full shuffle (every post moves: ${POOL_MAX.toLocaleString('en-US')} posts' documents rewritten in the one unit of work) and a swap of two neighbours (two documents), each PATCH sending the whole order. A write answers once its change is searchable, or after the relay's bound of 6 s with the change still on its way (src/elasticsearch/outbox-relay.ts): so after each, the pool's first and last pages are read until they show the new order, and that time is given too ("answered before searchable" counts the writes whose new order could not be read yet when they answered).`,
          'The last row reads pages of that pool before and after the reorders: the rewritten documents (with their nested pool entries) leave deleted documents in the index until its segments merge.',
        ],
        data: {
          posts,
          pools: c.pools,
          places: c.memberships,
          reindexSeconds: c.reindexSeconds,
          pairs: c.pairs.length,
          pairing,
          byPool,
          byTag,
          create: { ms: created.ms, searchableMs: createdSearchable },
          shuffles,
          swaps,
          readsBefore: before,
          readsAfter: after,
          deletedDocs: { before: deletedBefore, after: deletedAfter },
        },
      };
    });
    return out!;
  },
};
