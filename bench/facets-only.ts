/**
 * `npx tsx bench/facets-only.ts [--posts 100000] [--corpus DIR] [--before DIR] [--ms 10000] [--reps 4]` (issue 28):
 * the facets figure of `npm run bench` alone, with its raw-engine anchor, and optionally a second
 * server started from another checkout (DIR, e.g. `git archive main` with this node_modules linked)
 * on the same corpus, measured in the same alternating windows: a before/after in one session.
 * Prints the result as JSON. --corpus DIR measures on a kept corpus (bench/load/corpus.ts: seeded
 * on first use, reused after) instead of seeding a throwaway one; the second server then gets a copy
 * of its SQLite file and reads the same index. --record adds its rows (facets, the raw-engine anchor,
 * the `/image/search` throughput) to bench/recorded.json with the run's date and commit and rewrites
 * the dashboard (bench/RESULTS.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { openToolJob } from '../src/roles/jobs.ts';
import { reindex } from '../src/search/reindex.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { elasticsearchPid, measureCpu } from './lib/cpu.ts';
import { benchFacets, facetsAnchor } from './image-search.ts';
import { facetsOnlyRows, recordRows, writeDashboard } from './dashboard.ts';
import { benchEnv, gitCommit, tempDir } from './lib/env.ts';
import { startServerProcess, type ServerProcess } from './lib/server-process.ts';
import { openCorpus } from './load/corpus.ts';
import { headerOf, parseCli } from './lib/cli.ts';

const { values: a } = parseCli({
  usage: headerOf(import.meta.url),
  options: {
    posts: { type: 'string', default: '100000' },
    corpus: { type: 'string' },
    before: { type: 'string' },
    ms: { type: 'string', default: '10000' },
    reps: { type: 'string', default: '4' },
    samples: { type: 'string', default: '200' },
    record: { type: 'boolean', default: false },
  },
});
const esUrl = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';
const kept = a.corpus ? await openCorpus({ dir: path.resolve(a.corpus), posts: Number(a.posts), esUrl }) : undefined;
const dataDir = kept ? kept.env.DATA_DIR : tempDir('facets');
const prefix = kept ? kept.prefix : `bench-fo-${process.pid}`;
const env = kept ? kept.env : benchEnv({ dataDir, prefix, esUrl });
// The second server's copy of a kept corpus, taken while nothing has the database open.
const copyDir = kept && a.before ? tempDir('facets-before') : undefined;
if (copyDir)
  for (const f of fs.readdirSync(dataDir))
    if (f.startsWith('imgpost.sqlite')) fs.copyFileSync(path.join(dataDir, f), path.join(copyDir, f));
const services = await openToolJob(loadConfig(env), createLogger('warn'));
const servers: ServerProcess[] = [];
try {
  const seed = kept ?? seedPosts(services.db, { count: Number(a.posts), seed: 1 });
  if (!kept) await reindex(services, { settleMs: 0, retire: 'now' });
  const server = await startServerProcess(env);
  servers.push(server);
  // The second server needs a DATA_DIR of its own (the lock): the same seed gives the same posts.
  let before: ServerProcess | undefined;
  if (a.before) {
    const dir2 = copyDir ?? tempDir('facets-before');
    const env2 = { ...env, DATA_DIR: dir2 };
    if (!copyDir) {
      const job2 = await openToolJob(loadConfig(env2), createLogger('warn'));
      seedPosts(job2.db, { count: Number(a.posts), seed: 1 });
      await job2.close();
    }
    servers.push({ stop: async () => fs.rmSync(dir2, { recursive: true, force: true }) } as ServerProcess);
    before = await startServerProcess(env2, a.before);
  }
  if (before) servers.push(before);
  const anchor = await facetsAnchor(services, seed, esUrl);
  const cpu = measureCpu(server.pid, await elasticsearchPid(esUrl));
  const measuredAt = new Date().toISOString();
  const result = await benchFacets(seed, server.url, {
    samples: Number(a.samples),
    reps: Number(a.reps),
    repMs: Number(a.ms),
    concurrency: 50,
    anchor,
    before: before?.url,
    cpuOf: { serverPid: server.pid, beforePid: before?.pid, esPid: await elasticsearchPid(esUrl) },
  });
  const commit = gitCommit();
  const out = {
    posts: Number(a.posts),
    measuredAt,
    commit,
    startedServerFrom: a.before ?? null,
    cpuWholeRun: cpu.stop(),
    ...result,
  };
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
  if (a.record) {
    recordRows(facetsOnlyRows(result, Number(a.posts), measuredAt, commit));
    writeDashboard();
  }
} finally {
  for (const s of servers.reverse()) await s.stop();
  if (!kept) await services.es.indices.delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] });
  await services.close();
  if (!kept) fs.rmSync(dataDir, { recursive: true, force: true });
}
