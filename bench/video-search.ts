/**
 * Section `video-search` of `npm run bench` (issue 47, docs/decisions.md §21): `/image/search` with a
 * `mediaKind` condition against the same search without it, on one corpus (default 1M posts, 3 % of them
 * moving pictures: two in three videos, one in three animations), over HTTP against the server process:
 *  - ours: `{ mediaKind: video }` and a tag (tagInclude), 24 a page by upload date;
 *  - the anchor: the same tag alone, the same page.
 * The two are interleaved request by request at one client (p50/p99), then window by window at 8 clients.
 */
import { seedPosts } from '../tools/seed/seed.ts';
import { reindexCorpus, sectionScale } from './lib/corpus.ts';
import { ratio, show, type Figure } from './lib/figures.ts';
import { call, json } from './lib/requests.ts';
import type { BenchSection } from './lib/section.ts';
import { standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize } from './lib/stats.ts';
import { pairTakingTurns } from './lib/turns.ts';
import { sectionParams } from './params.ts';

const PAGE = 24;
/** the tags searched: this many of the most used, taken in turn */
const TAGS = 50;

export const section: BenchSection = {
  name: 'video-search',
  summary: '/image/search with mediaKind against the same search without it, 1M posts, 3 % moving (issue 47)',
  async run({ quick, sizes, log }) {
    const { posts, samples, ms, size } = sectionScale({ quick, sizes });
    const { moving } = sectionParams(quick).videoSearch;
    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('video-search', false, async (s) => {
      const t0 = nowMs();
      seedPosts(s.services.db, { count: posts, seed: 1, moving });
      const db = s.services.db;
      const kinds = Object.fromEntries(
        (
          db.prepare('SELECT media_kind AS k, count(*) AS n FROM posts GROUP BY media_kind').all() as {
            k: string;
            n: number;
          }[]
        ).map((r) => [r.k, r.n]),
      ) as Record<string, number>;
      const seedSeconds = (nowMs() - t0) / 1000;
      log(`seeded ${posts} posts (${JSON.stringify(kinds)}) in ${fmt(seedSeconds)} s; reindexing`);
      const t1 = nowMs();
      await reindexCorpus(s.services);
      const reindexSeconds = (nowMs() - t1) / 1000;
      log(`reindexed in ${fmt(reindexSeconds)} s`);
      const tags = db
        .prepare('SELECT name, post_count AS n FROM tags WHERE post_count > 0 ORDER BY post_count DESC LIMIT ?')
        .all(TAGS) as { name: string; n: number }[];
      const url = await s.startServer();
      const search = async (body: unknown) =>
        JSON.parse(await call(`${url}/image/search?limit=${PAGE}`, json('POST', body), 200)) as {
          data: { total: number; totalIsEstimate?: boolean };
        };
      const tagOnly = (tag: string) => ({ conditions: [{ type: 'tagInclude', value: tag }], orderBy: 'uploadDate' });
      const withKind = (tag: string) => ({
        conditions: [
          { type: 'mediaKind', value: 'video' },
          { type: 'tagInclude', value: tag },
        ],
        orderBy: 'uploadDate',
      });
      // What each answers: the totals of the first tag both ways (the filter narrows to about the video share). A
      // count stops at the total bound (docs/decisions.md, "Searches stop counting at 10,000").
      const counted = async (body: unknown) => {
        const { total, totalIsEstimate } = (await search(body)).data;
        return `${totalIsEstimate ? 'at least ' : ''}${total.toLocaleString('en-US')}`;
      };
      const totals = { tag: await counted(tagOnly(tags[0].name)), withKind: await counted(withKind(tags[0].name)) };
      log(`${tags[0].name}: ${totals.tag} posts, ${totals.withKind} of them videos`);
      const [kinded, plain] = await pairTakingTurns(
        [
          async (i) => {
            await search(withKind(tags[i % tags.length].name));
          },
          async (i) => {
            await search(tagOnly(tags[i % tags.length].name));
          },
        ],
        { samples, durationMs: ms, concurrency: 8 },
      );
      const ours: Figure = { latency: summarize(kinded.latencies), rps: kinded.rps };
      const anchor: Figure = { latency: summarize(plain.latencies), rps: plain.rps };
      const share = (k: string) => `${fmt(((kinds[k] ?? 0) / posts) * 100)} %`;
      const corpus = `${size}, ${share('video')} videos, ${share('animation')} animations`;
      out = {
        title: `Moving pictures: search by mediaKind (issue 47), ${size} posts`,
        rows: [
          {
            figure: '`/image/search` mediaKind video + a tag (24 a page, by upload date), 1 client / 8 clients',
            corpus,
            ours: show(ours),
            anchor: `the same tag without mediaKind: ${show(anchor)}`,
            ratio: ratio(ours, anchor),
            goal: 'none stated (compare)',
            met: 'none',
          },
        ],
        notes: [
          `One corpus: the seeder's ${size} posts and 3,000 tag names with \`moving: ${moving}\` (tools/seed/seed.ts): ${(kinds.video ?? 0).toLocaleString('en-US')} videos (WebM or MP4, 1 s to 2 min) and ${(kinds.animation ?? 0).toLocaleString('en-US')} animations (GIF), their media_kind, duration, frame_count and has_audio in the posts table as migration 022 defines them, indexed from the record by one reindex (${fmt(reindexSeconds)} s; seeding ${fmt(seedSeconds)} s).`,
          `The searches: request i searches the i-th of the ${tags.length} most used tags in turn (from ${tags[0].n.toLocaleString('en-US')} down to ${tags[tags.length - 1].n.toLocaleString('en-US')} posts), with \`{type: "mediaKind", value: "video"}\` added for ours (${tags[0].name}: ${totals.tag} posts, ${totals.withKind} with the filter); first page of 24 by upload date, no facets, so each answer is the page plus a count that stops at the total bound (10,000 by default, docs/decisions.md "Searches stop counting at 10,000"): the tag alone stops there for the most used tags, the filtered search counts its fewer matches to the end. One-client figures are ${samples} samples of each after a warm-up, request by request alternating; req/s is two ${ms / 2000}-s windows of 8 clients for each, alternating.`,
          "The machine was shared with other sessions' benchmarks (another 1M-post run among them): the ratio, measured with the two taking turns, is the figure; the absolute latencies are not.",
        ],
        data: { posts, moving, kinds, seedSeconds, reindexSeconds, tags: tags.length, totals, ours, anchor },
      };
    });
    return out!;
  },
};
