/**
 * Section `conversation` of `npm run bench` (issue 37, docs/decisions.md §18): what comments and votes cost,
 * on one corpus (default 1M posts with as many seeded votes and a fifth as many comments; `--sizes`
 * picks another), each figure next to its anchor in the same run, over HTTP against the server process:
 *  - vote toggles/s against favorite toggles/s (8 clients each, the CPU each cost);
 *  - `/image/search` `orderBy: "score"` and a post's comment page (`GET /api/post/{id}/comment`),
 *    p50/p99 one at a time and req/s with 8 clients, against the search ordered by upload date;
 *  - `/image/search` (tagInclude, by upload date) on the index as built against the same index with
 *    the five new fields (score, upvotes, downvotes, comments, commented_by) stripped from every
 *    document: the alias is pointed at a stripped copy and back, measured full / stripped / full.
 */
import { toPostDocument } from '../src/elasticsearch/post-document.ts';
import { readPostsMapping } from '../src/elasticsearch/posts-index.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { keyedAccounts, reindexCorpus, sectionScale } from './lib/corpus.ts';
import { elasticsearchPid } from './lib/cpu.ts';
import { cpuText, cpuTimedAlternating, figure, ratio, show, type CpuTimed, type Figure } from './lib/figures.ts';
import { call, favorite, imageSearch, onOff, vote } from './lib/requests.ts';
import type { BenchSection, SectionRow } from './lib/section.ts';
import { standalone, type Standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize } from './lib/stats.ts';

const CLIENTS = 500;
const NEW_FIELDS = ['score', 'upvotes', 'downvotes', 'comments', 'commented_by'];

/** Seeded posts with votes and comments (through the count triggers), `CLIENTS` accounts with keys, one reindex. */
async function corpus(s: Standalone, posts: number, log: (line: string) => void) {
  const t0 = nowMs();
  const seed = seedPosts(s.services.db, { count: posts, seed: 1, users: 1000, votes: posts, comments: posts / 5 });
  const db = s.services.db;
  const ids = db.prepare('SELECT id FROM posts ORDER BY seq').pluck().all() as string[];
  const counts = db
    .prepare('SELECT (SELECT count(*) FROM votes) AS votes, (SELECT count(*) FROM comments) AS comments')
    .get() as { votes: number; comments: number };
  const clients = keyedAccounts(s.services, 'talker_', CLIENTS, 0x4006).map((a) => a.key);
  // The posts with the most comments: the comment pages the figure reads.
  const talked = db.prepare('SELECT id FROM posts ORDER BY comments DESC LIMIT 200').pluck().all() as string[];
  log(
    `seeded ${posts} posts, ${counts.votes} votes, ${counts.comments} comments in ${fmt((nowMs() - t0) / 1000)} s; reindexing`,
  );
  await reindexCorpus(s.services);
  return { seed, ids, clients, talked, ...counts };
}

/** A copy of the live index without the new fields, for the alias to point at while it is measured. */
async function strippedCopy(s: Standalone): Promise<{ live: string; stripped: string }> {
  const { es, postsIndex } = s.services;
  const live = (await postsIndex.aliasTarget())!;
  const m = readPostsMapping();
  const properties = { ...(m.mappings as { properties: Record<string, unknown> }).properties };
  for (const f of NEW_FIELDS) delete properties[f];
  const stripped = `${postsIndex.prefix}-posts-stripped`;
  await es.indices.create({
    index: stripped,
    settings: { ...m.settings, number_of_replicas: 0 },
    mappings: { ...m.mappings, properties } as never,
  });
  // The documents as the relay and reindex build them (the bundled node has no `_reindex`), minus the fields.
  const posts = s.services.postRepository;
  for (const batch of posts.batches(2000)) {
    const robust = posts.robust.ofSeqs(batch.map((p) => p.seq));
    const operations = batch.flatMap((p) => {
      const doc = toPostDocument(p, robust.get(p.seq)) as unknown as Record<string, unknown>;
      for (const f of NEW_FIELDS) delete doc[f];
      return [{ index: { _index: stripped, _id: p.id } }, doc];
    });
    const res = await es.bulk({ operations, filter_path: 'errors' });
    if (res.errors) throw new Error('the stripped copy refused documents');
  }
  await es.indices.refresh({ index: stripped });
  // Both one segment, so the comparison is of the fields and not of the segments' history.
  // A merge of a 1M-document index outlasts the HTTP client's timeouts: started as a task, then waited on.
  for (const index of [live, stripped]) {
    await es.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: false });
    const segments = async () =>
      (await es.indices.stats({ index, metric: 'segments' }))._all.primaries?.segments?.count ?? 0;
    while ((await segments()) > 1) await new Promise((r) => setTimeout(r, 2000));
  }
  return { live, stripped };
}

async function pointAlias(s: Standalone, from: string, to: string): Promise<void> {
  const alias = s.services.postsIndex.alias;
  await s.services.es.indices.updateAliases({
    actions: [{ remove: { index: from, alias } }, { add: { index: to, alias } }],
  });
}

export const section: BenchSection = {
  name: 'conversation',
  summary: 'comments and votes at 1M posts: vote toggles, orderBy score, comment pages (issue 37)',
  async run({ quick, sizes, log }) {
    const { posts, samples, ms, size } = sectionScale({ quick, sizes });
    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('conversation', false, async (s) => {
      const c = await corpus(s, posts, log);
      const url = await s.startServer();
      const search = imageSearch(url);

      log('vote toggles against favorite toggles');
      const pids = { server: s.serverPid()!, elasticsearch: await elasticsearchPid(s.env.ELASTICSEARCH_URL) };
      const toggler = (what: 'vote' | 'favorite') => {
        const flip = onOff();
        return async (i: number) => {
          const key = c.clients[i % c.clients.length];
          const post = c.ids[(i * 7919) % c.ids.length];
          return (what === 'favorite' ? favorite : vote)(url, post, key, flip(`${key}:${post}`));
        };
      };
      // Alternating windows: the first loop after the reindex otherwise pays the engine's merges (at 1M, votes
      // measured first ran at 0.28× the favorites after them, against 1.24× at 100k).
      const [votes, favorites] = await cpuTimedAlternating(
        pids,
        [
          ['vote toggles', toggler('vote')],
          ['favorite toggles', toggler('favorite')],
        ],
        ms,
      );

      log('orderBy score and comment pages against orderBy uploadDate');
      const byUploadDate = await figure(
        'uploadDate',
        search(() => ({ orderBy: 'uploadDate' })),
        samples,
        ms,
      );
      const byScore = await figure(
        'score',
        search(() => ({ orderBy: 'score' })),
        samples,
        ms,
      );
      const commentPage = await figure(
        'comment page',
        async (i) => call(`${url}/api/post/${c.talked[i % c.talked.length]}/comment?limit=24`, {}, 200),
        samples,
        ms,
      );

      log('/image/search with and without the new fields');
      const tagged = search((i) => ({ conditions: [{ type: 'tagInclude', value: c.seed.tags[(i * 7) % 200] }] }));
      const { live, stripped } = await strippedCopy(s);
      const full1 = await figure('full index', tagged, samples, ms);
      await pointAlias(s, live, stripped);
      const bare = await figure('stripped index', tagged, samples, ms).finally(() => pointAlias(s, stripped, live));
      const full2 = await figure('full index again', tagged, samples, ms);
      const full: Figure = {
        rps: (full1.rps + full2.rps) / 2,
        latency: full1.latency.p50 <= full2.latency.p50 ? full1.latency : full2.latency,
      };

      const corpusText = `${size}, ${c.votes.toLocaleString('en-US')} votes, ${c.comments.toLocaleString('en-US')} comments`;
      const toggleText = (r: CpuTimed, unit: string) =>
        `${fmt(r.rps)} ${unit}/s, p50 ${fmt(summarize(r.latencies).p50)} ms, p99 ${fmt(summarize(r.latencies).p99)} ms; ${cpuText(r)}`;
      const rows: SectionRow[] = [
        {
          figure: 'Vote toggles (PUT/DELETE vote, 8 clients)',
          corpus: corpusText,
          ours: toggleText(votes, 'toggles'),
          anchor: `favorite toggles (8 clients): ${toggleText(favorites, 'toggles')}`,
          ratio: `${fmt(votes.rps / favorites.rps)}×`,
          goal: 'none stated (compare)',
          met: 'none',
        },
        {
          figure: '`/image/search` orderBy score',
          corpus: corpusText,
          ours: show(byScore),
          anchor: `orderBy uploadDate: ${show(byUploadDate)}`,
          ratio: ratio(byScore, byUploadDate),
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: "A post's comment page (`GET /api/post/{id}/comment`, 24, the most commented posts)",
          corpus: corpusText,
          ours: show(commentPage),
          anchor: `\`/image/search\` orderBy uploadDate: ${show(byUploadDate)}`,
          ratio: ratio(commentPage, byUploadDate),
          goal: 'none stated (report)',
          met: 'none',
        },
        {
          figure: '`/image/search` tagInclude with the new fields in every document',
          corpus: corpusText,
          ours: `${show(full1)}; again after: ${show(full2)}`,
          anchor: `the same documents without them: ${show(bare)}`,
          ratio: ratio(full, bare),
          goal: 'unchanged within noise',
          met: Math.abs(full.rps / bare.rps - 1) <= 0.1 ? 'met' : 'missed',
        },
      ];
      out = {
        title: `Conversation (issue 37), ${size} posts`,
        rows,
        notes: [
          `One corpus: the seeder's ${size} posts with ${c.votes.toLocaleString('en-US')} votes (70% up) and ${c.comments.toLocaleString('en-US')} comments by 1,000 seeded accounts on posts of skewed popularity (written into SQLite through the count triggers), ${CLIENTS} more accounts with keys for the toggles, one reindex. Requests go over HTTP to the server process; one-client figures are ${samples} samples after a warm-up, req/s is a ${ms / 1000}-s window of 8 clients (the vote and favorite toggles in three alternating windows each, ${fmt(ms / 3000)} s apiece, after a 1-s warm-up each).`,
          'A vote toggle and a favorite toggle are each a SQLite write with its count triggers and a reindex outbox row, answered once the document is searchable (no version, no webhook event, docs/decisions.md §14, §18).',
          "The comment pages are those of the 200 most commented posts (one indexed read of the page and one of the authors' names); the search anchor is the unfiltered search by upload date.",
          'The "new fields" row points the alias at a copy of the index written from SQLite as reindex writes it but with the five fields of mapping 9 removed, both force-merged to one segment, then back; "unchanged within noise" means req/s within 10%. The live index is measured before and after the copy, and the row compares their mean.',
        ],
        data: {
          posts,
          votes: c.votes,
          comments: c.comments,
          voteToggles: { rps: votes.rps, latency: summarize(votes.latencies), cpuMs: votes.cpuMs },
          favoriteToggles: { rps: favorites.rps, latency: summarize(favorites.latencies), cpuMs: favorites.cpuMs },
          byUploadDate,
          byScore,
          commentPage,
          searchWithFields: [full1, full2],
          searchWithoutFields: bare,
        },
      };
    });
    return out!;
  },
};
