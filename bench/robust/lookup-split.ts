/**
 * Where a robust lookup's time goes (issue 25, fifth pass), on the index bench/robust-lookup.ts keeps:
 * per query, building the request, Elasticsearch's own `took` against the client's wall time, the
 * descriptors' read from SQLite, the rule on them and the matches' details, in the order findRobust
 * runs them; the same queries as the bench (same seed, same random sequence).
 *
 *   ROBUST_LOOKUP_KEEP=/work/rl-keep-f2 ELASTICSEARCH_URL=http://127.0.0.1:9280 flock /work/bench.lock \
 *     npx tsx bench/robust/lookup-split.ts 1000000 100 [rounds=3]
 */
import { loadConfig } from '../../src/config.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { decodeDescriptor, FORMAT } from '../../src/robust/format.ts';
import { INDEX_CONDITION, robustMatch, THRESHOLD } from '../../src/robust/rule.ts';
import { createLogger } from '../../src/log.ts';
import { openToolJob } from '../../src/roles/jobs.ts';
import { candidateRequest } from '../../src/search/similar/robust-lookup.ts';
import { Random } from '../../tools/seed/random.ts';
import { benchEnv } from '../lib/env.ts';
import { fmt, nowMs, summarize } from '../lib/stats.ts';
import { pickQueries, realDescriptors, SEED, skipCorpus } from './corpus.ts';
import { headerOf, numberArg, parseCli } from '../lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const posts = numberArg(args[0], 1_000_000);
const queries = numberArg(args[1], 100);
const rounds = numberArg(args[2], 3);
const keep = process.env.ROBUST_LOOKUP_KEEP!;
const esUrl = process.env.ELASTICSEARCH_URL!;
// Only a build of this descriptor format (bench/robust-lookup.ts's marker): opening another would
// run migrations 016 and 017 on it, which clear its descriptors.
if (!existsSync(join(keep, `built-${posts}-format${FORMAT}`)))
  throw new Error(
    `${keep} holds no build of ${posts} posts in descriptor format ${FORMAT} (make one with bench/robust-lookup.ts)`,
  );
const rnd = new Random(SEED);
const { real, copies } = realDescriptors();
skipCorpus(rnd, real, posts);
const qs = pickQueries(rnd, real, copies, queries);
const services = await openToolJob(
  loadConfig(benchEnv({ dataDir: keep, prefix: `bench-keep-${posts}-robust`, esUrl })),
  createLogger('warn'),
);
const store = services.postRepository.robust;
const steps = ['build', 'stringify', 'es wall', 'es took', 'sqlite', 'rule', 'details', 'total'] as const;
const times = Object.fromEntries(steps.map((s) => [s, [] as number[]])) as Record<(typeof steps)[number], number[]>;
let candidates = 0;
let bodyBytes = 0;
for (let r = 0; r < rounds; r++) {
  for (const q of qs) {
    const t0 = nowMs();
    const request = candidateRequest(services.postsIndex.alias, q);
    const t1 = nowMs();
    const body = JSON.stringify(request);
    const t2 = nowMs();
    const res = await services.postsIndex.client.search({ ...request, filter_path: ['took', ...request.filter_path] });
    const t3 = nowMs();
    const seqs = (res.hits?.hits ?? []).map((h) => Number(h.sort![1]));
    const rows = store.ofSeqs(seqs);
    const t4 = nowMs();
    const matches: number[] = [];
    for (const [seq, buf] of rows) {
      const d = decodeDescriptor(buf);
      if (d && robustMatch(q, d, THRESHOLD, INDEX_CONDITION)) matches.push(seq);
    }
    const t5 = nowMs();
    store.stored(matches);
    const t6 = nowMs();
    if (r === rounds - 1) {
      candidates += seqs.length;
      bodyBytes += body.length;
      times.build.push(t1 - t0);
      times.stringify.push(t2 - t1);
      times['es wall'].push(t3 - t2);
      times['es took'].push(res.took);
      times.sqlite.push(t4 - t3);
      times.rule.push(t5 - t4);
      times.details.push(t6 - t5);
      times.total.push(t6 - t0 - (t2 - t1));
    }
  }
}
process.stdout.write(
  `${queries} queries (last of ${rounds} rounds), ${fmt(candidates / queries)} candidates and ${fmt(bodyBytes / queries / 1024)} KiB of query per request\n`,
);
for (const s of steps) {
  const v = summarize(times[s]);
  process.stdout.write(
    `${s.padEnd(10)} p50 ${fmt(v.p50)} ms, p90 ${fmt(v.p90)} ms, p99 ${fmt(v.p99)} ms, max ${fmt(v.max)} ms, mean ${fmt(v.mean)} ms\n`,
  );
}
await services.close();
