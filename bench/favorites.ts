/**
 * Favorites (docs/decisions.md §14), over HTTP against the server process, each figure next to its anchor
 * measured in the same run on the same corpus:
 *  - favorite toggles/s (PUT and DELETE /api/post/[id]/favorite by many accounts, 8 clients): each is a
 *    SQLite write with its count trigger, a 'reindex' outbox row and a wait for the index write.
 *    Anchor: post edits/s (PUT /api/post/[id], text only) on the same posts, the write path with a
 *    version and webhook fan-out.
 *  - /image/search with `orderBy: "favorites"`, and with the condition `favoritedBy`, one client,
 *    p50/p99, then req/s with 8 clients. Anchor: the same query sorted by upload date
 *    (`favoritedBy` sorted by upload date is also shown against the unfiltered upload-date sort).
 *
 * Corpus: the seeder's posts (`--posts`, default 100000), `--fans` accounts (default 500) each
 * favoriting 1-60 posts with a skewed popularity (written straight into SQLite, through the count
 * triggers), then one reindex so the documents carry the counts.
 *
 *   npx tsx bench/favorites.ts [--posts 100000] [--fans 500] [--ms 10000] [--keep]
 *
 * Prints a JSON result and Markdown rows.
 */
import { Random } from '../tools/seed/random.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { keyedAccounts, reindexCorpus, skewedFavorites } from './lib/corpus.ts';
import type { Figure } from './lib/figures.ts';
import { editText, favorite, imageSearch, onOff } from './lib/requests.ts';
import { check, closedLoop, sampleLatency } from './lib/http-load.ts';
import { standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize } from './lib/stats.ts';
import { headerOf, numberArg, parseCli, runIfMain } from './lib/cli.ts';

const log = (line: string) =>
  process.stderr.write(`[bench favorites ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<void> {
  const { values } = parseCli({
    usage: headerOf(import.meta.url),
    options: { posts: { type: 'string' }, fans: { type: 'string' }, ms: { type: 'string' }, keep: { type: 'boolean' } },
  });
  const posts = numberArg(values.posts, 100_000);
  const fans = numberArg(values.fans, 500);
  const ms = numberArg(values.ms, 10_000);
  await standalone('favorites', values.keep ?? false, async ({ dataDir, services, startServer }) => {
    log(`seeding ${posts} posts and ${fans} accounts with favorites in ${dataDir}`);
    const t0 = nowMs();
    seedPosts(services.db, { count: posts, seed: 1 });
    const rnd = new Random(27);
    const seqs = services.db.prepare('SELECT seq FROM posts ORDER BY seq').pluck().all() as number[];
    const ids = services.db.prepare('SELECT id FROM posts ORDER BY seq').pluck().all() as string[];
    const accounts = keyedAccounts(services, 'fan_', fans, 6);
    const favorites = skewedFavorites(services.db, accounts, seqs, rnd);
    const seedSeconds = (nowMs() - t0) / 1000;
    log(`seeded in ${seedSeconds.toFixed(1)} s (${favorites} favorites); reindexing`);
    await reindexCorpus(services);
    const url = await startServer();

    // Favorite toggles: account i toggles post j; each pair alternates PUT and DELETE.
    const flip = onOff();
    const toggle = async (i: number) => {
      const a = accounts[i % accounts.length];
      const post = ids[(i * 7919) % ids.length];
      await favorite(url, post, a.key, flip(`${a.id}:${post}`));
    };
    const editor = accounts[0];
    const edit = async (i: number) => editText(url, ids[(i * 7919) % ids.length], editor.key, `edit ${i}`);
    log('favorite toggles vs post edits');
    await closedLoop({ concurrency: 8, durationMs: 1000, task: toggle });
    const toggles = check(
      await closedLoop({ concurrency: 8, durationMs: ms, task: (i) => toggle(i + 100_000) }),
      'toggles',
    );
    const edits = check(await closedLoop({ concurrency: 8, durationMs: ms, task: edit }), 'edits');

    // Searches: the most active fans are the interesting favoritedBy values.
    const top = services.db
      .prepare(
        'SELECT u.name FROM favorites f JOIN users u ON u.id = f.user_id GROUP BY f.user_id ORDER BY count(*) DESC LIMIT 20',
      )
      .pluck()
      .all() as string[];
    const search = imageSearch(url);
    const queries = {
      byFavorites: search(() => ({ orderBy: 'favorites' })),
      byUploadDate: search(() => ({ orderBy: 'uploadDate' })),
      favoritedBy: search((i) => ({
        conditions: [{ type: 'favoritedBy', value: top[i % top.length] }],
        orderBy: 'uploadDate',
      })),
      favoritedByFavorites: search((i) => ({
        conditions: [{ type: 'favoritedBy', value: top[i % top.length] }],
        orderBy: 'favorites',
      })),
    };
    const figures: Record<string, Figure> = {};
    for (const [name, task] of Object.entries(queries)) {
      log(`search ${name}`);
      await sampleLatency(100, 30_000, task);
      const one = check(await sampleLatency(1000, ms, task), name);
      const eight = check(await closedLoop({ concurrency: 8, durationMs: ms, task }), name);
      figures[name] = { latency: summarize(one.latencies), rps: eight.rps };
    }
    const result = {
      posts,
      fans,
      favorites,
      seedSeconds,
      toggles: { latency: summarize(toggles.latencies), rps: toggles.rps },
      edits: { latency: summarize(edits.latencies), rps: edits.rps },
      search: figures,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    const size = `${posts.toLocaleString('en-US')} posts, ${favorites.toLocaleString('en-US')} favorites`;
    const row = (label: string, f: Figure, anchor: string, a: Figure) =>
      `| ${label}, ${size} | p50 ${fmt(f.latency.p50)} ms, p99 ${fmt(f.latency.p99)} ms, ${fmt(f.rps)} req/s | ${anchor}: p50 ${fmt(a.latency.p50)} ms, p99 ${fmt(a.latency.p99)} ms, ${fmt(a.rps)} req/s |\n`;
    process.stdout.write(row('favorite toggles (8 clients)', result.toggles, 'post edits (8 clients)', result.edits));
    process.stdout.write(
      row('/image/search orderBy favorites', figures.byFavorites, 'orderBy uploadDate', figures.byUploadDate),
    );
    process.stdout.write(
      row(
        '/image/search favoritedBy, by upload date',
        figures.favoritedBy,
        'unfiltered, by upload date',
        figures.byUploadDate,
      ),
    );
    process.stdout.write(
      row(
        '/image/search favoritedBy, orderBy favorites',
        figures.favoritedByFavorites,
        'favoritedBy, by upload date',
        figures.favoritedBy,
      ),
    );
  });
}

runIfMain(import.meta.url, main);
