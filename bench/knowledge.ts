/**
 * Section `knowledge` of `npm run bench` (issue 51, docs/decisions.md §23): what wiki pages and notes cost a
 * reader, on one corpus (default 1M posts, notes on 5 % of them, 3,000 wiki pages; `--sizes` picks another
 * and scales the pages with it), each figure next to its anchor in the same run, over HTTP against the
 * server process:
 *  - a post's page as the gallery loads it (the HTML page, `/api/post/{id}`, `/api/post/{id}/note`) for posts
 *    with notes, against the same for posts without (whose notes answer is an empty list); and the notes
 *    request alone, with notes against without;
 *  - a single-tag search page as the gallery loads it (the HTML page, `/image/search` with its facets, the
 *    wiki excerpt: `/wiki_pages.json` and the lookups of the tags its first paragraph links) for tags with a
 *    page, against tags without one whose post counts are about the same; and the excerpt's requests alone.
 * Each pair takes turns (request by request at one client, window by window at 8).
 */
import { Random } from '../tools/seed/random.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { reindexCorpus, sectionScale } from './lib/corpus.ts';
import { show, type Figure } from './lib/figures.ts';
import { notesOf, postPage, tagSearchPage, wikiExcerpt } from './lib/requests.ts';
import type { BenchSection, SectionRow } from './lib/section.ts';
import { standalone, type Standalone } from './lib/standalone.ts';
import { fmt, median, nowMs, summarize } from './lib/stats.ts';
import { pairTakingTurns } from './lib/turns.ts';
import { sectionParams } from './params.ts';

/** A tag with a wiki page and a tag without one, of about as many posts. */
interface Pair {
  paged: string;
  pagedCount: number;
  plain: string;
  plainCount: number;
}

/** a pair's counts within this share of each other */
const CLOSE = 0.15;
/** posts and pairs drawn for the requests */
const DRAWN = 500;

/** Fisher-Yates with the seeded PRNG, in place. */
function shuffle<T>(items: T[], rnd: Random): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rnd.int(0, i);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Seeded posts with notes and wiki pages, one reindex; posts with and without notes, tags paired. */
async function corpus(s: Standalone, posts: number, quick: boolean, log: (line: string) => void) {
  const p = sectionParams(quick).knowledge;
  const t0 = nowMs();
  const pages = Math.max(50, Math.round((p.wikiPagesPerMillion * posts) / 1_000_000));
  const noted = Math.round(p.notedShare * posts);
  seedPosts(s.services.db, {
    count: posts,
    seed: 1,
    tags: p.tags,
    notes: { posts: noted, perPost: p.notesPerPost },
    wiki: { pages },
  });
  const db = s.services.db;
  const count = (sql: string) => db.prepare(sql).pluck().get() as number;
  const notes = count('SELECT count(*) FROM notes');
  const notedPosts = count('SELECT count(*) FROM posts WHERE notes > 0');
  const wikiPages = count('SELECT count(*) FROM wiki_pages');
  log(
    `seeded ${posts} posts (${notedPosts} with ${notes} notes), ${wikiPages} wiki pages in ${fmt((nowMs() - t0) / 1000)} s; reindexing`,
  );
  const t1 = nowMs();
  await reindexCorpus(s.services);
  const reindexSeconds = (nowMs() - t1) / 1000;
  const rnd = new Random(51);
  const ids = (sql: string) => shuffle(db.prepare(sql).pluck().all() as string[], rnd).slice(0, DRAWN);
  const withNotes = ids('SELECT id FROM posts WHERE notes > 0');
  // Posts without notes: drawn from one residue class of the numbers (about 4 × DRAWN), not all 1M ids.
  const every = Math.max(1, Math.floor(posts / (DRAWN * 4)));
  const withoutNotes = ids(`SELECT id FROM posts WHERE notes = 0 AND seq % ${every} = ${rnd.int(0, every - 1)}`);
  const tags = db
    .prepare(
      `SELECT t.name, t.post_count AS n, EXISTS (SELECT 1 FROM wiki_pages w WHERE w.tag = t.name) AS paged
       FROM tags t WHERE t.post_count > 0 ORDER BY t.post_count`,
    )
    .all() as { name: string; n: number; paged: number }[];
  const plain = tags.filter((t) => !t.paged);
  const nearest = (n: number) => {
    let lo = 0;
    let hi = plain.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (plain[mid].n < n) lo = mid + 1;
      else hi = mid;
    }
    const below = plain[Math.max(0, lo - 1)];
    return Math.abs(below.n - n) < Math.abs(plain[lo].n - n) ? below : plain[lo];
  };
  const all: Pair[] = tags
    .filter((t) => t.paged)
    .map((t) => {
      const q = nearest(t.n);
      return { paged: t.name, pagedCount: t.n, plain: q.name, plainCount: q.n };
    });
  // Tags whose count some tag without a page matches closely (the most common tags all have pages).
  const close = all.filter((x) => Math.abs(x.plainCount / x.pagedCount - 1) <= CLOSE);
  const pairs = shuffle(close.length >= 20 ? close : all, rnd).slice(0, DRAWN);
  return { notes, notedPosts, wikiPages, reindexSeconds, withNotes, withoutNotes, pairs, closeOf: close.length };
}

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
/** Ours against the anchor as times (above 1 is ours slower) and as req/s (above 1 is ours faster). */
const ratio = (ours: Figure, anchor: Figure): string =>
  `time ${fmt(ours.latency.p50 / anchor.latency.p50)}× at p50, ${fmt(ours.latency.p99 / anchor.latency.p99)}× at p99; req/s ${fmt(ours.rps / anchor.rps)}×`;
const figureOf = (r: { latencies: number[]; rps: number }): Figure => ({ latency: summarize(r.latencies), rps: r.rps });

export const section: BenchSection = {
  name: 'knowledge',
  summary:
    'wiki pages and notes at 1M posts: a post page with its notes, a tag search with its wiki excerpt (issue 51)',
  async run({ quick, sizes, log }) {
    const { posts, samples, ms, size } = sectionScale({ quick, sizes });
    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('knowledge', false, async (s) => {
      const c = await corpus(s, posts, quick, log);
      const url = await s.startServer();
      const opts = { samples, durationMs: ms, concurrency: 8 };
      const at = <T>(xs: T[], i: number) => xs[i % xs.length];

      log(`post pages: ${c.withNotes.length} posts with notes against ${c.withoutNotes.length} without`);
      const [notedPage, plainPage] = await pairTakingTurns(
        [(i) => postPage(url, at(c.withNotes, i)), (i) => postPage(url, at(c.withoutNotes, i))],
        opts,
      );
      const [notedCall, plainCall] = await pairTakingTurns(
        [(i) => notesOf(url, at(c.withNotes, i)), (i) => notesOf(url, at(c.withoutNotes, i))],
        opts,
      );
      // How many notes the drawn posts carry, and how long their answers are.
      const noteCounts = await Promise.all(
        c.withNotes.map(async (id) => (JSON.parse(await notesOf(url, id)) as unknown[]).length),
      );

      log(`tag search pages: ${c.pairs.length} tags with a wiki page against tags without`);
      const [pagedSearch, plainSearch] = await pairTakingTurns(
        [(i) => tagSearchPage(url, at(c.pairs, i).paged), (i) => tagSearchPage(url, at(c.pairs, i).plain)],
        opts,
      );
      const [pagedExcerpt, plainExcerpt] = await pairTakingTurns(
        [(i) => wikiExcerpt(url, at(c.pairs, i).paged), (i) => wikiExcerpt(url, at(c.pairs, i).plain)],
        opts,
      );
      const lookups = await Promise.all(c.pairs.map((x) => wikiExcerpt(url, x.paged)));

      const byNotedPage = figureOf(notedPage);
      const byPlainPage = figureOf(plainPage);
      const byNotedCall = figureOf(notedCall);
      const byPlainCall = figureOf(plainCall);
      const byPagedSearch = figureOf(pagedSearch);
      const byPlainSearch = figureOf(plainSearch);
      const byPagedExcerpt = figureOf(pagedExcerpt);
      const byPlainExcerpt = figureOf(plainExcerpt);
      const pairing = median(c.pairs.map((x) => x.plainCount / x.pagedCount));
      const corpusText = `${size}, ${c.notedPosts.toLocaleString('en-US')} posts with ${c.notes.toLocaleString('en-US')} notes, ${c.wikiPages.toLocaleString('en-US')} wiki pages`;
      const p = sectionParams(quick).knowledge;
      const rows: SectionRow[] = [
        {
          figure:
            "A post's page with its notes (HTML page, `/api/post/{id}`, `/api/post/{id}/note`, in turn), 1 client / 8 clients",
          corpus: corpusText,
          ours: show(byNotedPage),
          anchor: `the same page of a post without notes: ${show(byPlainPage)}`,
          ratio: ratio(byNotedPage, byPlainPage),
          goal: 'none stated (compare)',
          met: 'none',
        },
        {
          figure: 'Its notes request alone (`GET /api/post/{id}/note`)',
          corpus: corpusText,
          ours: show(byNotedCall),
          anchor: `a post without notes (an empty list): ${show(byPlainCall)}`,
          ratio: ratio(byNotedCall, byPlainCall),
          goal: 'none stated (compare)',
          met: 'none',
        },
        {
          figure:
            'A single-tag search page with its wiki excerpt (HTML page, `/image/search` 24 with facets, `/wiki_pages.json` and its linked tags, in turn)',
          corpus: corpusText,
          ours: show(byPagedSearch),
          anchor: `the same page for a tag without a wiki page, of about as many posts: ${show(byPlainSearch)}`,
          ratio: ratio(byPagedSearch, byPlainSearch),
          goal: 'none stated (compare)',
          met: 'none',
        },
        {
          figure:
            "The excerpt's requests alone (`/wiki_pages.json`, then `/tags.json` and `/wiki_pages.json` of each linked tag)",
          corpus: corpusText,
          ours: show(byPagedExcerpt),
          anchor: `\`/wiki_pages.json\` of a tag without a page (an empty list): ${show(byPlainExcerpt)}`,
          ratio: ratio(byPagedExcerpt, byPlainExcerpt),
          goal: 'none stated (compare)',
          met: 'none',
        },
      ];
      out = {
        title: `Knowledge: wiki pages and notes (issue 51), ${size} posts`,
        rows,
        notes: [
          `One corpus: the seeder's ${size} posts over ${p.tags.toLocaleString('en-US')} tag names, ${c.notedPosts.toLocaleString('en-US')} of them (${fmt((100 * c.notedPosts) / posts)} %) with 1 to ${p.notesPerPost} notes each (${c.notes.toLocaleString('en-US')} in all), and ${c.wikiPages.toLocaleString('en-US')} wiki pages on distinct tags (common tags more likely), each one to four paragraphs of 8 to 60 words with about one \`[[tag]]\` link in 17 words, \`{{search}}\` links and post numbers; one reindex (${fmt(c.reindexSeconds)} s). Requests go over HTTP to the server process as an anonymous reader; one-client figures are ${samples} samples of each kind after a warm-up, the two kinds alternating request by request; req/s is two ${ms / 2000}-s windows of 8 clients for each kind, alternating.`,
          `Post pages: ${c.withNotes.length} random posts with notes (${fmt(mean(noteCounts))} notes each on average) against ${c.withoutNotes.length} random posts without. A page is its three requests one after the other, as the page's script makes them (the notes are asked for once the image's size is known): the notes answer for a post without notes is an empty list, so the ratio is what a post's notes add to its page.`,
          `Search pages: ${c.pairs.length} tags with a page, each paired with the tag without a page whose post count is nearest (${c.closeOf} within ${CLOSE * 100} %; median count ratio ${fmt(pairing)}); request i loads the first page of pair i's two searches. The excerpt reads the page, then looks up the tags its first paragraph links (${fmt(mean(lookups))} on average, at most 50), each tag's \`/tags.json\` and \`/wiki_pages.json\` at once, as the gallery does to colour the links and mark missing pages.`,
          "Left out of both sides alike: the browser's work (parsing, the script's rendering, layout), the script and stylesheet (cached by the browser), the image and the thumbnails, the post page's comments and similar-posts sections, and the search results' tag categories (one `/api/post/{id}` per result). So the ratios are of the server's part of a page load, not of what a reader sees on screen.",
          "Ratios: the time of ours over the anchor's at p50 and at p99 (above 1 is slower), and req/s of ours over the anchor's (above 1 is faster). The box is shared with other sessions building and testing at the same time (2 cores): the absolute times move with their load, so the figure is the ratio against the anchor measured in turns in the same run.",
        ],
        data: {
          posts,
          notes: c.notes,
          notedPosts: c.notedPosts,
          wikiPages: c.wikiPages,
          reindexSeconds: c.reindexSeconds,
          meanNotesPerDrawnPost: mean(noteCounts),
          pairs: c.pairs.length,
          closePairs: c.closeOf,
          pairing,
          meanLinkLookups: mean(lookups),
          postPage: { withNotes: byNotedPage, withoutNotes: byPlainPage },
          notesRequest: { withNotes: byNotedCall, withoutNotes: byPlainCall },
          searchPage: { withWiki: byPagedSearch, withoutWiki: byPlainSearch },
          excerpt: { withWiki: byPagedExcerpt, withoutWiki: byPlainExcerpt },
        },
      };
    });
    return out!;
  },
};
