/**
 * `npx tsx bench/facet-variants.ts [--posts 100000] [--ms 5000] [--rounds 2]` (issue 28): what each
 * way Elasticsearch offers of computing `/image/search` facets costs, straight to the engine (no
 * server), on the endpoint's own captured query bodies, 50 clients, the variants in alternating
 * windows so drift on a shared box hits them alike. Prints one line per variant: median req/s and
 * the ratio to the plain page request. Used to choose the facet path; not part of `npm run bench`.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { openToolJob } from '../src/roles/jobs.ts';
import { reindex } from '../src/search/reindex.ts';
import { seedPosts } from '../src/seed/seed.ts';
import { captureEngineCalls, replay, type EngineCall } from './anchors/engine-direct.ts';
import { ALL_FACETS, bodies } from './image-search.ts';
import { benchEnv, tempDir } from './lib/env.ts';
import { closedLoop } from './lib/http-load.ts';
import { median } from './lib/stats.ts';
import fs from 'node:fs';

const { values: a } = parseArgs({ options: { posts: { type: 'string', default: '100000' }, ms: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '2' }, eager: { type: 'boolean', default: false } } });
const esUrl = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';
const dataDir = tempDir('facets');
const prefix = `bench-fv-${process.pid}`;
const services = await openToolJob(loadConfig(benchEnv({ dataDir, prefix, esUrl })), createLogger('warn'));
try {
  const seed = seedPosts(services.db, { count: Number(a.posts), seed: 1 });
  await reindex(services, { settleMs: 0, retireMs: 0 });
  const list = bodies(seed, 300);
  const plain = await captureEngineCalls(services, list);
  const faceted = await captureEngineCalls(services, list.map((q) => ({ ...q, body: { ...(q.body as object), facets: ALL_FACETS } })));
  const index = services.postsIndex.alias;
  type Body = Record<string, unknown> & { aggs?: Record<string, unknown> };
  const last = (calls: EngineCall[]) => ({ pre: calls.slice(0, -1), main: JSON.parse(calls[calls.length - 1].body) as Body, path: calls[calls.length - 1].path });
  const single = (pre: EngineCall[], path: string, body: Body): EngineCall[] => [...pre, { path, body: JSON.stringify(body), contentType: 'application/json' }];
  const msearch = (pre: EngineCall[], parts: [Record<string, unknown>, Body][]): EngineCall[] => [
    ...pre,
    { path: `/${index}/_msearch`, body: `${parts.flatMap(([h, b]) => [JSON.stringify(h), JSON.stringify(b)]).join('\n')}\n`, contentType: 'application/x-ndjson' },
  ];
  const ratingFilters = { filters: { filters: { none: { term: { rating: 'none' } }, moderate: { term: { rating: 'moderate' } }, violent: { term: { rating: 'violent' } } } } };
  const variants: Record<string, EngineCall[][]> = {
    plain: plain,
    faceted: faceted,
    'rating as filters': faceted.map((c) => { const { pre, main, path } = last(c); return single(pre, path, { ...main, aggs: { ...main.aggs, rating: ratingFilters } }); }),
    'uploader without name sub-agg': faceted.map((c) => { const { pre, main, path } = last(c); const up = main.aggs!.uploader as Record<string, unknown>; return single(pre, path, { ...main, aggs: { ...main.aggs, uploader: { terms: up.terms } } }); }),
    'only tags agg': faceted.map((c) => { const { pre, main, path } = last(c); return single(pre, path, { ...main, aggs: { tags: main.aggs!.tags } }); }),
    'only uploader agg': faceted.map((c) => { const { pre, main, path } = last(c); return single(pre, path, { ...main, aggs: { uploader: main.aggs!.uploader } }); }),
    'only rating agg': faceted.map((c) => { const { pre, main, path } = last(c); return single(pre, path, { ...main, aggs: { rating: main.aggs!.rating } }); }),
    'msearch page + size-0 facets, request_cache': faceted.map((c) => { const { pre, main } = last(c); const { aggs, ...page } = main; return msearch(pre, [[{}, page], [{ request_cache: true }, { query: main.query, size: 0, track_total_hits: true, aggs }]]); }),
    'msearch page + size-0 facets, no cache': faceted.map((c) => { const { pre, main } = last(c); const { aggs, ...page } = main; return msearch(pre, [[{}, page], [{ request_cache: false }, { query: main.query, size: 0, track_total_hits: true, aggs }]]); }),
    'msearch page (no total) + size-0 total+facets, cache': faceted.map((c) => { const { pre, main } = last(c); const { aggs, ...page } = main; return msearch(pre, [[{}, { ...page, track_total_hits: false }], [{ request_cache: true }, { query: main.query, size: 0, track_total_hits: true, aggs }]]); }),
    'plain: msearch page (no total) + size-0 total, cache': plain.map((c) => { const { pre, main } = last(c); return msearch(pre, [[{}, { ...main, track_total_hits: false }], [{ request_cache: true }, { query: main.query, size: 0, track_total_hits: true }]]); }),
  };
  if (a.eager) await services.es.indices.putMapping({ index, properties: { tags: { type: 'keyword', eager_global_ordinals: true }, rating: { type: 'keyword', eager_global_ordinals: true } } });
  const rps = new Map<string, number[]>(Object.keys(variants).map((k) => [k, []]));
  for (const [, calls] of Object.entries(variants)) await closedLoop({ concurrency: 50, durationMs: 1000, task: (i) => replay(esUrl, calls[i % calls.length]) });
  for (let r = 0; r < Number(a.rounds); r++) {
    const names = Object.keys(variants);
    for (const name of r % 2 ? names.reverse() : names) {
      const run = await closedLoop({ concurrency: 50, durationMs: Number(a.ms), task: (i) => replay(esUrl, variants[name][(i * 13 + r) % variants[name].length]) });
      if (run.errors) throw new Error(`${name}: ${run.firstError}`);
      rps.get(name)!.push(run.rps);
      process.stderr.write(`${r} ${name}: ${run.rps.toFixed(1)} req/s\n`);
    }
  }
  const base = median(rps.get('plain')!);
  for (const [name, runs] of rps) process.stdout.write(`| ${name} | ${median(runs).toFixed(1)} req/s (${runs.map((x) => x.toFixed(0)).join(', ')}) | ${((100 * median(runs)) / base).toFixed(1)} % of plain |\n`);
} finally {
  await services.es.indices.delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] });
  await services.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
