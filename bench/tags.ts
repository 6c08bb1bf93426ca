/**
 * Tag autocomplete, GET /api/tag?prefix=… (docs/decisions.md §10): latency over HTTP against the server
 * process (one client, p50/p99), next to two anchors measured in the same run on the same file:
 *  - "sql": the two statements the endpoint runs (count and page over tags.post_count), in process,
 *    so the distance between it and the HTTP figure is routing, validation and JSON;
 *  - "plain count": the same answer computed without stored counts (GROUP BY over post_tags), the
 *    way it would be done if the counts were not kept; bounded in time.
 *
 * The corpus is written straight into SQLite in one transaction (posts, 100k pseudo-word tags with
 * a skewed popularity, 0-8 tags per post), through the real triggers that keep the counts.
 *
 *   npx tsx bench/tags.ts [--posts 1000000] [--tags 100000] [--samples 2000] [--keep]
 *
 * Prints a JSON result and a Markdown row. `npm run bench` measures the same figure (benchTags) on
 * its seeded corpus of each size; this script builds its own, with 100k tags.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../src/db/sqlite.ts';
import { Random } from '../tools/seed/random.ts';
import { foldTag, prefixUpperBound } from '../src/kernel/tag-fold.ts';
import { TagRepository } from '../src/kernel/tag-repository.ts';
import { sampleLatency } from './lib/http-load.ts';
import { standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize, type LatencySummary } from './lib/stats.ts';
import { numberArg, parseCli, runIfMain } from './lib/cli.ts';

export interface TagBenchOptions {
  posts: number;
  tags: number;
  samples: number;
  /** time bound for the plain-count anchor (it still takes at least 10 samples) */
  plainBudgetMs: number;
  /**
   * length range of the typed prefixes (default 1-4; longer for names sharing a long start, like the seeder's `tag_N`)
   */
  prefixChars?: { min: number; max: number };
}

/** A row of GET /api/tag?prefix=… as the endpoint returns it. */
interface TagRow {
  id: number;
  name: string;
  count: number;
  category: string;
  aliasOf?: string;
}
interface TagAnswer {
  count: number;
  data: TagRow[];
}

export interface TagBenchResult {
  posts: number;
  tags: number;
  postTags: number;
  buildSeconds: number;
  ours: LatencySummary;
  sql: LatencySummary;
  plainCount: LatencySummary;
  /** the endpoint's answers equal the plain count's, for every checked query */
  agrees: boolean;
  checked: number;
  meanMatches: number;
}

const SYLLABLES = [
  'ka',
  'ri',
  'mo',
  'ne',
  'su',
  'ta',
  'lo',
  'vi',
  'pe',
  'an',
  'or',
  'el',
  'ch',
  'st',
  'ba',
  'du',
  'xe',
  'yo',
  'zu',
  'qi',
  'fa',
  'go',
  'hu',
  'ji',
  'wa',
  'ce',
];

/** Distinct pseudo-words of 2-5 syllables, some capitalised, a few with a suffix: varied prefixes. */
function tagNames(rnd: Random, n: number): string[] {
  const names = new Set<string>();
  while (names.size < n) {
    let name = Array.from({ length: rnd.int(2, 5) }, () => rnd.pick(SYLLABLES)).join('');
    if (rnd.chance(0.1)) name = name[0].toUpperCase() + name.slice(1);
    if (rnd.chance(0.2)) name += `_${rnd.int(1, 99)}`;
    names.add(name);
  }
  return [...names];
}

/** Posts and their tags, written directly in one transaction (the count triggers fire as in production). */
export function buildTagCorpus(db: Db, opts: { posts: number; tags: number }): { names: string[]; postTags: number } {
  const rnd = new Random(2024);
  const names = tagNames(rnd, opts.tags);
  const insertTag = db.prepare('INSERT INTO tags (name, folded) VALUES (?, ?)');
  const insertPost = db.prepare(
    `INSERT INTO posts (id, text, rating, ext, mime, width, height, hash, created_at, updated_at)
     VALUES (?, '', 'none', 'png', 'image/png', 1, 1, ?, ?, ?)`,
  );
  const link = db.prepare('INSERT INTO post_tags (post_seq, tag_id) VALUES (?, ?)');
  let postTags = 0;
  db.transaction(() => {
    const ids = names.map((name) => Number(insertTag.run(name, foldTag(name)).lastInsertRowid));
    const created = new Date('2024-01-01T00:00:00Z').toISOString();
    for (let i = 0; i < opts.posts; i++) {
      const id = `01900000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
      const seq = Number(insertPost.run(id, rnd.bits64(), created, created).lastInsertRowid);
      const chosen = new Set<number>();
      for (let k = rnd.int(0, 8); k > 0; k--) chosen.add(ids[rnd.skewed(ids.length, 3)]);
      for (const tag of chosen) link.run(seq, tag);
      postTags += chosen.size;
    }
  })();
  db.exec('ANALYZE');
  return { names, postTags };
}

/** What users type: the start (1-4 characters) of a tag, popular ones more often; any case; sometimes nothing. */
function prefixes(rnd: Random, names: string[], n: number, chars = { min: 1, max: 4 }): string[] {
  return Array.from({ length: n }, () => {
    if (rnd.chance(0.05)) return '';
    const name = names[rnd.skewed(names.length, 3)];
    const start = name.slice(0, rnd.int(Math.min(chars.min, name.length), Math.min(chars.max, name.length)));
    return rnd.chance(0.2) ? start.toUpperCase() : start;
  });
}

/**
 * The endpoint's answer without stored counts: group every link of every matching tag, and of the
 * target of every matching alias (docs/decisions.md §15; the full list, prefix '', leaves aliases out).
 * It carries everything the endpoint's rows carry (category since migration 019, docs/decisions.md §19;
 * aliasOf on alias hits) and ranks as the endpoint does, so the two can be compared whole.
 */
function plainCount(db: Db, prefix: string, limit: number): TagAnswer {
  const low = foldTag(prefix);
  const high = prefixUpperBound(low) ?? '\u{10ffff}';
  const aliases =
    low === ''
      ? ''
      : `UNION ALL SELECT t.id, t.name, count(*) AS count, t.category, a.name AS aliasOf
         FROM tag_aliases a JOIN tags t ON t.name = a.target JOIN post_tags pt ON pt.tag_id = t.id
         WHERE a.folded >= ? AND a.folded < ? GROUP BY a.name`;
  const rows = db
    .prepare(
      `SELECT t.id, t.name, count(*) AS count, t.category, NULL AS aliasOf FROM tags t JOIN post_tags pt ON pt.tag_id = t.id
       WHERE t.folded >= ? AND t.folded < ? GROUP BY t.id ${aliases} ORDER BY count DESC, name, aliasOf`,
    )
    .all(low, high, ...(low === '' ? [] : [low, high])) as (TagRow & { aliasOf: string | null })[];
  return {
    count: rows.length,
    data: rows.slice(0, limit).map(({ aliasOf, ...t }) => (aliasOf === null ? t : { ...t, aliasOf })),
  };
}

export type TagFigure = Omit<TagBenchResult, 'posts' | 'tags' | 'postTags' | 'buildSeconds'>;

export async function benchTags(
  db: Db,
  serverUrl: string,
  names: string[],
  opts: Pick<TagBenchOptions, 'samples' | 'plainBudgetMs' | 'prefixChars'>,
): Promise<TagFigure> {
  const repo = new TagRepository(db);
  const qs = prefixes(new Random(99), names, Math.max(opts.samples, 200), opts.prefixChars);
  const q = (i: number) => qs[i % qs.length];
  const get = async (prefix: string) => {
    const res = await fetch(`${serverUrl}/api/tag?prefix=${encodeURIComponent(prefix)}&limit=10`);
    if (res.status !== 200) throw new Error(`GET /api/tag: ${res.status} ${await res.text()}`);
    return (await res.json()) as TagAnswer;
  };

  // Correctness first: the endpoint's answer is the plain count's, compared as values (not as JSON
  // text, which also depends on the order of keys), every field of every row.
  let agrees = true;
  const checked = Math.min(30, qs.length);
  for (let i = 0; i < checked; i++) {
    const ours = await get(q(i));
    const plain = plainCount(db, q(i), 10);
    if (isDeepStrictEqual(ours, plain)) continue;
    if (agrees)
      process.stderr.write(
        `[bench tags] prefix ${JSON.stringify(q(i))}: the endpoint answered ${JSON.stringify(ours)}, ` +
          `the plain count ${JSON.stringify(plain)}\n`,
      );
    agrees = false;
  }

  for (let i = 0; i < 100; i++) await get(q(i)); // warm-up
  let matches = 0;
  const ours = await sampleLatency(opts.samples, 5 * 60_000, async (i) => {
    matches += (await get(q(i))).count;
  });
  if (ours.errors > 0) throw new Error(`GET /api/tag failed: ${ours.firstError}`);
  const sql = await sampleLatency(
    opts.samples,
    5 * 60_000,
    async (i) => void (repo.count(q(i)), repo.page(q(i), 0, 10)),
  );
  const plain = await sampleLatency(opts.samples, opts.plainBudgetMs, async (i) => void plainCount(db, q(i), 10));
  let plainLatencies = plain.latencies;
  if (plainLatencies.length < 10)
    plainLatencies = plainLatencies.concat(
      (await sampleLatency(10 - plainLatencies.length, 10 * 60_000, async (i) => void plainCount(db, q(i + 500), 10)))
        .latencies,
    );
  return {
    ours: summarize(ours.latencies),
    sql: summarize(sql.latencies),
    plainCount: summarize(plainLatencies),
    agrees,
    checked,
    meanMatches: matches / ours.requests,
  };
}

const USAGE = `Usage: npx tsx bench/tags.ts [--posts N] [--tags N] [--samples N] [--keep]

  --posts N     posts in the corpus (default 1000000)
  --tags N      distinct tag names (default 100000)
  --samples N   requests per measured variant (default 2000)
  --keep        leave the data directory in place
`;

async function main(): Promise<void> {
  const { values } = parseCli({
    usage: USAGE,
    options: {
      posts: { type: 'string' },
      tags: { type: 'string' },
      samples: { type: 'string' },
      keep: { type: 'boolean' },
    },
  });
  const opts: TagBenchOptions = {
    posts: numberArg(values.posts, 1_000_000),
    tags: numberArg(values.tags, 100_000),
    samples: numberArg(values.samples, 2000),
    plainBudgetMs: 60_000,
  };
  const log = (line: string) =>
    process.stderr.write(`[bench tags ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  await standalone('tags', values.keep ?? false, async ({ dataDir, services, startServer }) => {
    log(`building ${opts.posts} posts and ${opts.tags} tags in ${dataDir}`);
    const t0 = nowMs();
    const { names, postTags } = buildTagCorpus(services.db, opts);
    const buildSeconds = (nowMs() - t0) / 1000;
    log(`built in ${buildSeconds.toFixed(1)} s (${postTags} tag links); starting the server`);
    const r = await benchTags(services.db, await startServer(), names, opts);
    const result: TagBenchResult = { posts: opts.posts, tags: opts.tags, postTags, buildSeconds, ...r };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `| tag autocomplete, ${opts.posts.toLocaleString('en-US')} posts, ${opts.tags.toLocaleString('en-US')} tags | ` +
        `ours p50 ${fmt(r.ours.p50)} ms, p99 ${fmt(r.ours.p99)} ms | SQL p50 ${fmt(r.sql.p50)} ms, p99 ${fmt(r.sql.p99)} ms | ` +
        `plain count p50 ${fmt(r.plainCount.p50)} ms, p99 ${fmt(r.plainCount.p99)} ms | answers agree: ${r.agrees ? 'yes' : 'NO'} (${r.checked}) |\n`,
    );
  });
}

runIfMain(import.meta.url, main);
