/**
 * Section `community` of `npm run bench` (issues 24 and 27): what the community features cost, on
 * one corpus (default 1M posts; `--sizes` picks another), each figure next to its anchor in the
 * same run, over HTTP against the server process:
 *  - tagAny (an OR group of two tags) against tagInclude of one of them (docs/decisions.md §15);
 *  - favorite toggles/s against post edits/s (8 clients each); `/image/search` with
 *    `orderBy: "favorites"` and with `favoritedBy`, against the same query sorted by upload date
 *    (docs/decisions.md §14): p50/p99 one at a time, req/s with 8 clients;
 *  - an implication applied by the server's background job to the ~100k posts carrying one tag
 *    (posts/s), and the p99 of `/image/search` while it runs against the same figure just before.
 * The implication goes last: it rewrites posts the other figures read.
 */
import { Random } from '../tools/seed/random.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { keyedAccounts, reindexCorpus, sectionScale, skewedFavorites } from './lib/corpus.ts';
import { elasticsearchPid } from './lib/cpu.ts';
import { cpuText, cpuTimed, figure, ratio, show } from './lib/figures.ts';
import { call, editText, favorite, imageSearch, onOff } from './lib/requests.ts';
import { check, sampleLatency } from './lib/http-load.ts';
import type { BenchSection, SectionRow } from './lib/section.ts';
import { standalone, type Standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize } from './lib/stats.ts';

const FANS = 500;

/** Seeded posts, `FANS` accounts favoriting 1-60 posts each with a skewed popularity, one reindex. */
async function corpus(s: Standalone, posts: number, log: (line: string) => void) {
  const t0 = nowMs();
  const seed = seedPosts(s.services.db, { count: posts, seed: 1 });
  const db = s.services.db;
  const seqs = db.prepare('SELECT seq FROM posts ORDER BY seq').pluck().all() as number[];
  const ids = db.prepare('SELECT id FROM posts ORDER BY seq').pluck().all() as string[];
  const rnd = new Random(27);
  const fans = keyedAccounts(s.services, 'fan_', FANS, 6);
  const favorites = skewedFavorites(db, fans, seqs, rnd);
  s.services.postRepository.ensureTags(['bench_implied']);
  const admin = await s.services.accounts.createUser({
    name: 'bench_admin',
    password: 'correct horse battery',
    permission: 0x2 | 0x4 | 0x1000,
  });
  log(`seeded ${posts} posts, ${favorites} favorites in ${fmt((nowMs() - t0) / 1000)} s; reindexing`);
  await reindexCorpus(s.services);
  // The implication's source: the seeded tag carried by the number of posts nearest to 100k (or a tenth of a smaller
  // corpus).
  const want = Math.min(100_000, posts / 10);
  const source = db
    .prepare('SELECT name, post_count AS n FROM tags WHERE name GLOB ? ORDER BY abs(post_count - ?) LIMIT 1')
    .get('[tT]ag_*', want) as { name: string; n: number };
  return { seed, ids, fans, favorites, admin, source };
}

export const section: BenchSection = {
  name: 'community',
  summary: 'tagAny, favorites and an implication job at 1M posts (issues 24, 27)',
  async run({ quick, sizes, log }) {
    const { posts, samples, ms, size } = sectionScale({ quick, sizes });
    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('community', false, async (s) => {
      const c = await corpus(s, posts, log);
      const url = await s.startServer();
      const search = imageSearch(url);

      log('tagAny against tagInclude');
      // Popular and middling tags alike: pairs walk the seeded names.
      const pair = (i: number) => [c.seed.tags[(i * 7) % 200], c.seed.tags[(i * 13 + 1) % 200]];
      const tagInclude = await figure(
        'tagInclude',
        search((i) => ({ conditions: [{ type: 'tagInclude', value: pair(i)[0] }] })),
        samples,
        ms,
      );
      const tagAny = await figure(
        'tagAny',
        search((i) => ({ conditions: pair(i).map((value) => ({ type: 'tagAny', value })) })),
        samples,
        ms,
      );

      log('favorite toggles against post edits');
      const flip = onOff();
      const toggle = async (i: number) => {
        const fan = c.fans[i % c.fans.length];
        const post = c.ids[(i * 7919) % c.ids.length];
        await favorite(url, post, fan.key, flip(`${fan.id}:${post}`));
      };
      const edit = async (i: number) => editText(url, c.ids[(i * 7919) % c.ids.length], c.admin.accessKey, `edit ${i}`);
      // Each loop warmed up first and timed with the CPU it cost the server and the engine (cpuTimed).
      const pids = { server: s.serverPid()!, elasticsearch: await elasticsearchPid(s.env.ELASTICSEARCH_URL) };
      const toggles = await cpuTimed(pids, 'toggles', toggle, ms);
      const edits = await cpuTimed(pids, 'edits', edit, ms);

      log('searches by favorites');
      const top = s.services.db
        .prepare(
          'SELECT u.name FROM favorites f JOIN users u ON u.id = f.user_id GROUP BY f.user_id ORDER BY count(*) DESC LIMIT 20',
        )
        .pluck()
        .all() as string[];
      const byUploadDate = await figure(
        'uploadDate',
        search(() => ({ orderBy: 'uploadDate' })),
        samples,
        ms,
      );
      const byFavorites = await figure(
        'favorites',
        search(() => ({ orderBy: 'favorites' })),
        samples,
        ms,
      );
      const favoritedBy = await figure(
        'favoritedBy',
        search((i) => ({ conditions: [{ type: 'favoritedBy', value: top[i % top.length] }], orderBy: 'uploadDate' })),
        samples,
        ms,
      );

      log(`implication ${c.source.name} -> bench_implied on ${c.source.n} posts`);
      const probe = search((i) => ({ conditions: [{ type: 'tagInclude', value: c.seed.tags[(i * 7) % 200] }] }));
      const idle = summarize(check(await sampleLatency(samples, ms * 3, probe), 'idle probe').latencies);
      const t0 = nowMs();
      await call(
        `${url}/api/tag/${c.source.name}/implies/bench_implied`,
        { method: 'PUT', headers: { 'X-Access-Key': c.admin.accessKey } },
        200,
      );
      const job = () =>
        s.services.db.prepare('SELECT state, changed FROM tag_jobs ORDER BY id DESC LIMIT 1').get() as {
          state: string;
          changed: number;
        };
      const during: number[] = [];
      while (job().state !== 'done')
        during.push(...check(await sampleLatency(20, 60_000, probe), 'probe during the job').latencies);
      const seconds = (nowMs() - t0) / 1000;
      const changed = job().changed;
      const busy = summarize(during);

      const corpusText = `${size}, ${c.favorites.toLocaleString('en-US')} favorites`;
      const rows: SectionRow[] = [
        {
          figure: '`/image/search` tagAny (2 tags), 1 client / 8 clients',
          corpus: size,
          ours: show(tagAny),
          anchor: `tagInclude (1 tag): ${show(tagInclude)}`,
          ratio: ratio(tagAny, tagInclude),
          goal: 'none stated (compare)',
          met: 'none',
        },
        {
          figure: 'Implication applied by the background job',
          corpus: size,
          ours: `${changed.toLocaleString('en-US')} posts in ${fmt(seconds)} s: ${fmt(changed / seconds)} posts/s`,
          anchor: '—',
          ratio: '—',
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: '`/image/search` p99 while the implication runs',
          corpus: size,
          ours: `p50 ${fmt(busy.p50)} ms, p99 ${fmt(busy.p99)} ms (n=${busy.n})`,
          anchor: `just before, no job: p50 ${fmt(idle.p50)} ms, p99 ${fmt(idle.p99)} ms (n=${idle.n})`,
          ratio: `p99 ${fmt(busy.p99 / idle.p99)}× the idle`,
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: 'Favorite toggles (PUT/DELETE favorite, 8 clients)',
          corpus: corpusText,
          ours: `${fmt(toggles.rps)} toggles/s, p50 ${fmt(summarize(toggles.latencies).p50)} ms, p99 ${fmt(summarize(toggles.latencies).p99)} ms; ${cpuText(toggles)}`,
          anchor: `post edits (PUT text, 8 clients): ${fmt(edits.rps)} edits/s, p50 ${fmt(summarize(edits.latencies).p50)} ms; ${cpuText(edits)}`,
          ratio: `${fmt(toggles.rps / edits.rps)}×`,
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: '`/image/search` orderBy favorites',
          corpus: corpusText,
          ours: show(byFavorites),
          anchor: `orderBy uploadDate: ${show(byUploadDate)}`,
          ratio: ratio(byFavorites, byUploadDate),
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: '`/image/search` favoritedBy, by upload date',
          corpus: corpusText,
          ours: show(favoritedBy),
          anchor: `unfiltered, by upload date: ${show(byUploadDate)}`,
          ratio: ratio(favoritedBy, byUploadDate),
          goal: 'none stated (report)',
          met: 'none',
        },
      ];
      out = {
        title: `Community features (issues 24 and 27), ${size} posts`,
        rows,
        notes: [
          `One corpus: the seeder's ${size} posts and 3,000 tag names, ${FANS} accounts each favoriting 1-60 posts with a skewed popularity (written into SQLite through the count triggers), one reindex. Requests go over HTTP to the server process; one-client figures are ${samples} samples after a warm-up, req/s is a ${ms / 1000}-s window of 8 clients.`,
          'tagAny pairs and tagInclude tags walk the 200 most popular seeded names, so the OR group matches more posts than either tag: its figure includes counting a larger set exactly.',
          `The implication goes last (it rewrites the posts the other figures read): \`PUT /api/tag/${c.source.name}/implies/bench_implied\` queues the durable job; the clock runs from the request to the job's "done". Each changed post is an edit: a version, an outbox row, webhook fan-out and reindexing through the relay. The search probe is a one-client tagInclude loop before and during the job.`,
          'A favorite toggle is a SQLite write with its count trigger and a reindex outbox row (no version, no webhook event, docs/decisions.md §14); an edit also writes a version and fans out to webhooks.',
        ],
        data: {
          posts,
          favorites: c.favorites,
          source: c.source,
          tagAny,
          tagInclude,
          toggles: { rps: toggles.rps, latency: summarize(toggles.latencies), cpuMs: toggles.cpuMs },
          edits: { rps: edits.rps, latency: summarize(edits.latencies), cpuMs: edits.cpuMs },
          byUploadDate,
          byFavorites,
          favoritedBy,
          implication: { changed, seconds, idle, busy },
        },
      };
    });
    return out!;
  },
};
