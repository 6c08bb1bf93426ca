/**
 * The robust lookup (docs/decisions.md §16, issue 25) at scale: p50/p99 of the indexed lookup
 * (src/search/similar/robust-lookup.ts findRobust: the Elasticsearch candidates sharing the most of at
 * least MIN_SHARED segments (probed within PROBE_RADIUS bits), at most MAX_CANDIDATES, then the rule on their
 * descriptors read from SQLite in one statement) against a linear scan of the same descriptors in SQLite under the same
 * rule (scanRobust), in the same run (the lookups first, the scans after); the two answers are
 * compared for every query. The anchor, interleaved with it: the same lookup under the rule before its
 * probes (2 exactly equal segments: `EXACT`), for before and after in one run.
 *
 *   npx tsx bench/robust/build-set.ts && npx tsx bench/robust/evaluate.ts   # the descriptors
 *   npx tsx bench/robust-lookup.ts [posts=100000] [queries=100]
 *   ROBUST_LOOKUP_KEEP=/some/dir npx tsx bench/robust-lookup.ts ...   # keep SQLite and the index there:
 *     a later run with the same dir and posts skips the build (an index takes ~10 min per 1M posts on
 *     an idle box), so the lookup can be measured again after a change to the query side only
 *   ROBUST_LOOKUP_SLOWEST=1 ... # also prints the six slowest lookups (query number, ms) to stderr
 *   ROBUST_LOOKUP_SCANS=0 ...   # the lookups alone (a second timing; the scan, seconds a query at 1M,
 *                               # and the comparison skipped)
 *
 * Corpus: the evaluation set's 4,800 real descriptors (240 photographs and 19 copies of each), and
 * as many more as asked, each a real one with its 16 segments rotated by 1-15 places (the same in
 * all its hashes) and 3 % of its bits flipped: real value statistics, unrelated positions. Posts are
 * written straight into SQLite, the index is built by the production reindex (src/search/reindex.ts)
 * and merged to one segment as `imgpost reindex` does. Queries: copies of the set picked at random
 * (their originals are in the corpus). In process: no HTTP.
 */
import fs from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { encodeDescriptor, FORMAT } from '../src/robust/format.ts';
import { MAX_CANDIDATES, type Descriptor, type IndexCondition } from '../src/robust/rule.ts';
import { createLogger } from '../src/log.ts';
import { openToolJob } from '../src/roles/jobs.ts';
import { benchElasticsearchUrl } from './lib/elasticsearch.ts';
import { reindex } from '../src/search/reindex.ts';
import { candidateRequest, findRobust, scanRobust, type RobustHit } from '../src/search/similar/robust-lookup.ts';
import { Random } from '../tools/seed/random.ts';
import { DIR, pickQueries, realDescriptors, SEED, skipCorpus, unrelated as unrelatedOf } from './robust/corpus.ts';
import { benchEnv, tempDir } from './lib/env.ts';
import { fmt, nowMs, summarize } from './lib/stats.ts';
import { headerOf, numberArg, parseCli } from './lib/cli.ts';

/** condition 2 before issue 25's probes: 2 segments, exactly equal */
const EXACT: IndexCondition = { needed: 2, radius: 0 };
const exactLookup = (
  postsIndex: Parameters<typeof findRobust>[0],
  store: Parameters<typeof findRobust>[1],
  q: Descriptor,
) => findRobust(postsIndex, store, q, MAX_CANDIDATES, EXACT);

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const posts = numberArg(args[0], 100_000);
const queries = numberArg(args[1], 100);
const log = (line: string) =>
  process.stderr.write(`[robust-lookup ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const rnd = new Random(SEED);
const { real, copies } = realDescriptors();
log(`${real.length} real descriptors from ${DIR}`);
const unrelated = (d: Descriptor) => unrelatedOf(rnd, d);

const esUrl = await benchElasticsearchUrl('warn');
const keep = process.env.ROBUST_LOOKUP_KEEP;
const dataDir = keep ?? tempDir('robust-lookup');
const prefix = keep ? `bench-keep-${posts}-robust` : `bench-${process.pid}-robust`;
// The marker names the descriptor format: a kept build of another format (its descriptors cleared by
// migrations 016 and 017 or read as absent) is not reused; the directory must be deleted to build it again.
const builtMarker = keep && join(keep, `built-${posts}-format${FORMAT}`);
const reuse = !!builtMarker && fs.existsSync(builtMarker);
if (keep && !reuse && fs.existsSync(keep) && fs.readdirSync(keep).some((f) => f.startsWith('built-')))
  throw new Error(
    `${keep} holds a build of another size or descriptor format (${fs
      .readdirSync(keep)
      .filter((f) => f.startsWith('built-'))
      .join(', ')}); delete it to build format ${FORMAT} anew`,
  );
if (keep) fs.mkdirSync(keep, { recursive: true });
const services = await openToolJob(loadConfig(benchEnv({ dataDir, prefix, esUrl })), createLogger('warn'));
try {
  const t0 = nowMs();
  let indexSeconds = NaN;
  if (reuse) {
    // the same random sequence as the build, so the queries are the same ones
    skipCorpus(rnd, real, posts);
    indexSeconds = Number(fs.readFileSync(builtMarker, 'utf8'));
    log(
      `reusing ${services.postRepository.count()} posts and their index from ${keep} (built in ${indexSeconds.toFixed(1)} s)`,
    );
  } else {
    const insert = services.db.prepare(
      `INSERT INTO posts (id, text, rating, ext, mime, width, height, hash, created_at, updated_at, robust)
       VALUES (?, '', 'none', 'png', 'image/png', 1, 1, ?, ?, ?, ?)`,
    );
    services.db.transaction(() => {
      const start = Date.parse('2024-01-01T00:00:00Z');
      for (let i = 0; i < Math.max(posts, real.length); i++) {
        const d = i < real.length ? real[i] : unrelated(real[rnd.int(0, real.length - 1)]);
        const at = new Date(start + i * 1000).toISOString();
        insert.run(
          `01900000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`,
          rnd.bits64(),
          at,
          at,
          encodeDescriptor(d),
        );
      }
    })();
    log(`${services.postRepository.count()} posts in SQLite in ${((nowMs() - t0) / 1000).toFixed(1)} s; indexing`);
    const t1 = nowMs();
    // Small bulks: a document carries ~340 terms (~4 KB), and the shared box's node took over 10 s for 1,000 of them.
    await reindex(services, { batch: 200, concurrency: 1, settleMs: 0, retire: 'now', merge: false });
    indexSeconds = (nowMs() - t1) / 1000;
    // As `imgpost reindex` leaves it: merged to one segment (in the background there; awaited here).
    await services.es.indices.forcemerge({
      index: services.postsIndex.alias,
      max_num_segments: 1,
      wait_for_completion: false,
    });
    const segments = async () =>
      (await services.es.indices.stats({ index: services.postsIndex.alias, metric: 'segments' }))._all.primaries
        ?.segments?.count ?? 0;
    while ((await segments()) > 1) await new Promise((r) => setTimeout(r, 2000));
    log(`indexed in ${indexSeconds.toFixed(1)} s, merged to one segment; ${queries} queries`);
    if (builtMarker) fs.writeFileSync(builtMarker, `${indexSeconds}\n`);
  }
  if (process.env.ROBUST_LOOKUP_BUILD_ONLY === '1') {
    await services.close();
    process.exit(0);
  }

  const store = services.postRepository.robust;
  const qs = pickQueries(rnd, real, copies, queries);
  // The fifth pass's "before" in the same run: the same lookup with the candidates' request as the
  // fourth pass sent it (`minimum_should_match: needed` inside the bool, no `min_score`).
  const fourthPass = (req: ReturnType<typeof candidateRequest>) => {
    const { min_score: needed, query, ...rest } = req;
    return { ...rest, query: { bool: { ...(query as { bool: object }).bool, minimum_should_match: needed } } };
  };
  const beforeIndex: typeof services.postsIndex = Object.assign(Object.create(services.postsIndex), {
    client: { search: (req: ReturnType<typeof candidateRequest>) => services.es.search(fourthPass(req)) },
  });
  const beforeLookup = (q: Descriptor) => findRobust(beforeIndex, store, q);
  for (const q of qs.slice(0, 5))
    await Promise.all([
      findRobust(services.postsIndex, store, q),
      exactLookup(services.postsIndex, store, q),
      beforeLookup(q),
    ]); // warm-up
  const ours: number[] = [];
  const exactTimes: number[] = [];
  const beforeTimes: number[] = [];
  let beforeDiffer = 0;
  const scan: number[] = [];
  let differ = 0;
  let exactDiffer = 0;
  let found = 0;
  const timed = async <T>(into: number[], f: () => Promise<T>): Promise<T> => {
    const t0 = nowMs();
    const r = await f();
    into.push(nowMs() - t0);
    return r;
  };
  // The three lookups first, in turn; the scans after them: a scan reads every row of SQLite into
  // the JS heap, and the collection that follows it landed in whichever lookup was timed next.
  const answers: { a: RobustHit[]; p: RobustHit[] }[] = [];
  for (const [i, q] of qs.entries()) {
    // rotate which lookup goes first: the later ones meet the first one's terms in Elasticsearch's caches
    const runs = [
      () => timed(ours, () => findRobust(services.postsIndex, store, q)),
      () => timed(exactTimes, () => exactLookup(services.postsIndex, store, q)),
      () => timed(beforeTimes, () => beforeLookup(q)),
    ];
    const got: RobustHit[][] = [];
    for (let k = 0; k < 3; k++) got[(i + k) % 3] = await runs[(i + k) % 3]();
    const [a, p, b] = got;
    if (JSON.stringify(a) !== JSON.stringify(b)) beforeDiffer++;
    answers.push({ a, p });
  }
  let addedMadeUp = 0;
  let addedReal = 0;
  let foundExact = 0;
  let exactOnly = 0;
  let exactOnlyReal = 0;
  const scans = process.env.ROBUST_LOOKUP_SCANS !== '0';
  for (const [i, q] of qs.entries()) {
    const { a, p } = answers[i];
    found += a.length;
    foundExact += p.length;
    if (!scans) continue;
    const t = nowMs();
    const b = scanRobust(store, q);
    scan.push(nowMs() - t);
    const key = (list: RobustHit[]) => JSON.stringify(list.map((m) => [m.id, m.distance]));
    if (key(a) !== key(b)) differ++;
    // the exact-term rule finds fewer: the matches it leaves out that ours finds, real or made up
    if (key(p) !== key(b)) exactDiffer++;
    const exactSeqs = new Set(p.map((m) => m.seq));
    for (const m of b) {
      if (exactSeqs.has(m.seq)) continue;
      if (m.seq <= real.length) addedReal++;
      else addedMadeUp++;
    }
    const oursSeqs = new Set(b.map((m) => m.seq));
    for (const m of p) {
      if (oursSeqs.has(m.seq)) continue;
      if (m.seq <= real.length) exactOnlyReal++;
      else exactOnly++;
    }
  }
  if (process.env.ROBUST_LOOKUP_SLOWEST)
    process.stderr.write(
      `slowest: ${ours
        .map((ms, i) => [i, ms])
        .sort((x, y) => y[1] - x[1])
        .slice(0, 6)
        .map(([i, ms]) => `#${i} ${ms.toFixed(1)}`)
        .join(', ')}\n`,
    );
  const o = summarize(ours);
  const s = summarize(scan);
  const pr = summarize(exactTimes);
  const bf = summarize(beforeTimes);
  const n = services.postRepository.count();
  process.stdout.write(
    `| robust lookup, ${n.toLocaleString('en-US')} posts, ${queries} queries | ours p50 ${fmt(o.p50)} ms, p99 ${fmt(o.p99)} ms | ` +
      `the fourth pass's request (minimum_should_match) p50 ${fmt(bf.p50)} ms, p99 ${fmt(bf.p99)} ms, answers ${beforeDiffer === 0 ? 'the same as ours' : `DIFFERENT in ${beforeDiffer} queries`}; ` +
      `the exact-term rule's lookup (2 equal segments) p50 ${fmt(pr.p50)} ms, p99 ${fmt(pr.p99)} ms | ` +
      (scans
        ? `linear scan p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms | answers identical to the scan: ${differ === 0 ? 'yes' : `NO (${differ} differ)`} `
        : 'no scans (ROBUST_LOOKUP_SCANS=0) ') +
      (scans
        ? `(the exact-term rule: ${exactDiffer === 0 ? 'the same' : `${exactDiffer} queries differ; matches ours adds: ${addedReal} real descriptors, ${addedMadeUp} made-up unrelated ones; matches only it finds: ${exactOnlyReal} real, ${exactOnly} made-up`}) `
        : '') +
      '| ' +
      `${fmt(found / queries)} matches per query (exact-term rule ${fmt(foundExact / queries)}); indexing ${fmt(indexSeconds)} s |\n`,
  );
} finally {
  if (!keep)
    await services.es.indices
      .delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] })
      .catch(() => {});
  await services.close();
  if (!keep) fs.rmSync(dataDir, { recursive: true, force: true });
}
