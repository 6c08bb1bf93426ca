/**
 * Section `booru` of `npm run bench` (issue 39, docs/decisions.md §20): what the Danbooru read API
 * costs against imgpost's own search, on one corpus (default 1M posts; `--sizes` picks another), over
 * HTTP against the server process. `/posts.json?tags=<2 tags>&limit=20` and `&limit=200` against
 * `/image/search` for the same query (the same two tags as tagInclude conditions, newest first: orderBy
 * id, the same page size; 24 at most there, so the `limit=200` anchor is its largest page): p50/p99 at
 * one client, req/s at 50 clients, the CPU each request cost the server and the engine. The endpoints
 * take turns in short windows (interleaved), so a change in the box's load falls on all of them alike.
 */
import { seedPosts } from '../tools/seed/seed.ts';
import { reindexCorpus, sectionScale } from './lib/corpus.ts';
import { sectionParams } from './params.ts';
import { call, postsJson, tagSearch } from './lib/requests.ts';
import type { BenchSection, SectionRow } from './lib/section.ts';
import { standalone, type Standalone } from './lib/standalone.ts';
import { fmt, maxOf, median, minOf, nowMs } from './lib/stats.ts';
import { endpointsTakingTurns, type TurnFigure } from './lib/turns.ts';

const CLIENTS = 50;
/** the most used tags the pairs are drawn from */
const TOP = 40;
const ROUNDS = 3;
const PAIRS = 64;

/** Seeded posts with an MD5 and a size each (as uploads have; the seeder records none), one reindex. */
async function corpus(s: Standalone, posts: number, log: (line: string) => void) {
  const t0 = nowMs();
  seedPosts(s.services.db, { count: posts, seed: 1 });
  const db = s.services.db;
  // The answer carries md5 and file_size as for uploaded posts: straight into SQLite, the corpus not the figure.
  db.prepare('UPDATE posts SET md5 = lower(hex(randomblob(16))), file_size = 20000 + abs(random() % 2000000)').run();
  // Names in the Danbooru spelling as they are (no escapes), most used first.
  const top = db
    .prepare(
      "SELECT name FROM tags WHERE name GLOB '[a-z]*' AND name NOT GLOB '*[^a-z0-9_]*' ORDER BY post_count DESC LIMIT ?",
    )
    .pluck()
    .all(TOP) as string[];
  log(`seeded ${posts} posts in ${fmt((nowMs() - t0) / 1000)} s; reindexing`);
  await reindexCorpus(s.services);
  return { top };
}

/**
 * The queries: of every pair of the most used tags, the `PAIRS` that match the most posts (counted by
 * `/counts/posts.json`), so that pages are full as far as the corpus allows, as for a popular search.
 */
async function popularPairs(url: string, top: string[]): Promise<{ pair: string[]; matches: number }[]> {
  const all: { pair: string[]; matches: number }[] = [];
  for (let i = 0; i < top.length; i++)
    for (let j = i + 1; j < top.length; j++) {
      const pair = [top[i], top[j]];
      const body = await call(`${url}/counts/posts.json?tags=${encodeURIComponent(pair.join(' '))}`, {}, 200);
      all.push({ pair, matches: (JSON.parse(body) as { counts: { posts: number } }).counts.posts });
    }
  return all.sort((a, b) => b.matches - a.matches).slice(0, PAIRS);
}

const show = (f: TurnFigure) =>
  `p50 ${fmt(f.latency.p50)} ms, p99 ${fmt(f.latency.p99)} ms (1 client); ${fmt(f.rps)} req/s (${CLIENTS} clients); ` +
  `CPU per request: server ${fmt(f.cpuMs.server)} ms, Elasticsearch ${fmt(f.cpuMs.elasticsearch)} ms`;

export const section: BenchSection = {
  name: 'booru',
  summary: 'the Danbooru read API (/posts.json, 2 tags) against /image/search at 1M posts (issue 39)',
  async run({ quick, sizes, log }) {
    const { posts, size } = sectionScale({ quick, sizes });
    const { samples, ms } = sectionParams(quick).booru;
    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('booru', false, async (s) => {
      const { top } = await corpus(s, posts, log);
      const url = await s.startServer();
      const chosen = await popularPairs(url, top);
      const pairs = chosen.map((x) => x.pair);
      const pair = (i: number) => pairs[i % pairs.length];
      const booru = (limit: number) => (i: number) => postsJson(url, pair(i), limit);
      const search = (limit: number) => (i: number) => tagSearch(url, pair(i), limit);

      // The same query: both answer the same posts in the same order (a Danbooru id is the post number).
      for (let i = 0; i < pairs.length; i++) {
        const ours = (JSON.parse(await booru(20)(i)) as { id: number }[]).map((p) => p.id);
        const { data } = JSON.parse(await search(20)(i)) as { data: { total: number; images: { id: number }[] } };
        if (JSON.stringify(ours) !== JSON.stringify(data.images.map((x) => x.id)) || data.total !== chosen[i].matches)
          throw new Error(`${pair(i).join(' ')}: /posts.json and /image/search disagree`);
      }
      const matches = chosen.map((x) => x.matches);
      const full = matches.filter((n) => n >= 200).length;
      log(`${pairs.length} queries, ${full} with at least 200 matches; measuring`);

      const figures = await endpointsTakingTurns(
        s,
        [
          { name: 'booru20', task: async (i) => void (await booru(20)(i)) },
          { name: 'search20', task: async (i) => void (await search(20)(i)) },
          { name: 'booru200', task: async (i) => void (await booru(200)(i)) },
          { name: 'search24', task: async (i) => void (await search(24)(i)) },
        ],
        { samples, ms, clients: CLIENTS, rounds: ROUNDS, log },
      );
      const f = (name: string) => figures.get(name)!;
      const at20 = f('booru20').rps / f('search20').rps;
      const at200 = f('booru200').rps / f('search24').rps;
      const rows: SectionRow[] = [
        {
          figure: '`/posts.json?tags=<2 tags>&limit=20`',
          corpus: size,
          ours: show(f('booru20')),
          anchor: `\`/image/search\` (2 tagInclude, orderBy id, limit 20): ${show(f('search20'))}`,
          ratio: `req/s ${fmt(at20)}×, p50 ${fmt(f('search20').latency.p50 / f('booru20').latency.p50)}×`,
          goal: '≥ 0.8× the req/s of /image/search',
          met: at20 >= 0.8 ? 'met' : 'missed',
        },
        {
          figure: '`/posts.json?tags=<2 tags>&limit=200`',
          corpus: size,
          ours: show(f('booru200')),
          anchor: `\`/image/search\` (the same, limit 24: its largest page): ${show(f('search24'))}`,
          ratio: `req/s ${fmt(at200)}×; posts/s ${fmt((at200 * 200) / 24)}×`,
          goal: 'none stated (report)',
          met: 'none',
        },
      ];
      out = {
        title: `The Danbooru read API (issue 39), ${size} posts`,
        rows,
        notes: [
          `One corpus: the seeder's ${size} posts and 3,000 tag names (each post given a random MD5 and size, as uploads have), one reindex. The queries are the ${PAIRS} pairs of the ${TOP} most used tags that match the most posts, taken in turn; they match ${fmt(median(matches))} posts at the median (${fmt(minOf(matches))} to ${fmt(maxOf(matches))}), ${full} of them at least 200. Before measuring, each pair is asked of both endpoints: the same posts in the same order.`,
          `Requests go over HTTP to the server process. The four endpoints take turns: a warm-up each, then ${ROUNDS} rounds of ${Math.ceil(samples / ROUNDS)} one-client samples each and of a ${ms / 1000}-s window of ${CLIENTS} clients each (the figures sum the rounds); CPU per request is the server's and the engine's CPU time over those windows divided by their requests.`,
          "`/posts.json` answers Danbooru's post objects (tag strings by category, pool string, md5 and file size, has_children) where `/image/search` answers its own smaller items; both run the same compiled query (the one query model, docs/decisions.md §20).",
        ],
        data: { posts, pairs: chosen, figures: Object.fromEntries(figures) },
      };
    });
    return out!;
  },
};
