/**
 * `npx tsx bench/facet-variants.ts [--posts 100000] [--corpus DIR] [--ms 5000] [--rounds 2] [--writes N] [--eager-ab]
 * [--only 'a;b']` (issue 28): what each way Elasticsearch offers of computing `/image/search` facets costs, straight to
 * the engine (no server), on the endpoint's own captured query bodies, 50 clients, the variants in alternating
 * windows so drift on a shared box hits them alike. Prints one line per variant: median req/s and
 * the ratio to the plain page request. Used to choose the facet path; not part of `npm run bench`.
 *
 * --writes N updates N random documents a second in the background (a field no facet reads), so the
 * index refreshes every second as under edits: every refresh empties the shard request cache and
 * makes new segments whose global ordinals must be rebuilt. --eager-ab measures each variant twice
 * per round, with `eager_global_ordinals` off and on for the faceted keyword fields (tags, rating,
 * uploader_name), switched on the live index between windows. --corpus DIR uses a kept corpus
 * (bench/load/corpus.ts) instead of seeding; --only names the variants to run (with "plain" always).
 */
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { openToolJob } from '../src/roles/jobs.ts';
import { reindex } from '../src/search/reindex.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { replay, type EngineCall } from './anchors/engine-direct.ts';
import { facetsAnchor } from './image-search.ts';
import { benchEnv, tempDir } from './lib/env.ts';
import { closedLoop } from './lib/http-load.ts';
import { median } from './lib/stats.ts';
import fs from 'node:fs';
import path from 'node:path';
import { openCorpus } from './load/corpus.ts';
import { headerOf, parseCli } from './lib/cli.ts';

const { values: a } = parseCli({
  usage: headerOf(import.meta.url),
  options: {
    posts: { type: 'string', default: '100000' },
    corpus: { type: 'string' },
    ms: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '2' },
    eager: { type: 'boolean', default: false },
    'eager-ab': { type: 'boolean', default: false },
    writes: { type: 'string', default: '0' },
    only: { type: 'string' },
  },
});
const esUrl = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';
const kept = a.corpus ? await openCorpus({ dir: path.resolve(a.corpus), posts: Number(a.posts), esUrl }) : undefined;
const dataDir = kept ? kept.env.DATA_DIR : tempDir('facets');
const prefix = kept ? kept.prefix : `bench-fv-${process.pid}`;
const services = await openToolJob(
  loadConfig(kept ? kept.env : benchEnv({ dataDir, prefix, esUrl })),
  createLogger('warn'),
);
let writer: { stop(): Promise<number> } | undefined;
try {
  const seed = kept ?? seedPosts(services.db, { count: Number(a.posts), seed: 1 });
  if (!kept) await reindex(services, { settleMs: 0, retire: 'now' });
  const { plain, faceted } = await facetsAnchor(services, seed, esUrl);
  const index = services.postsIndex.alias;
  // Global ordinals are built for keyword fields only (uploader_id is a long; its name sub-aggregation reads
  // uploader_name).
  const FACET_FIELDS = ['tags', 'rating', 'uploader_name'];
  type Body = Record<string, unknown> & { aggs?: Record<string, unknown> };
  // The endpoint's faceted call is an _msearch of the page (no count) and the cached size-0 count and
  // facets (src/search/engine.ts); the variants start from the one-request form of the same search.
  const SEARCH_PATH = `/${index}/_search?filter_path=hits.total,hits.hits.sort,pit_id,aggregations`;
  const last = (calls: EngineCall[]): { pre: EngineCall[]; main: Body; path: string } => {
    const call = calls[calls.length - 1];
    if (!call.path.includes('_msearch'))
      return { pre: calls.slice(0, -1), main: JSON.parse(call.body) as Body, path: call.path };
    const lines = call.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Body);
    const page = lines.length === 4 ? lines[1] : { query: lines[1].query, size: 0 };
    const count = lines[lines.length - 1];
    return {
      pre: calls.slice(0, -1),
      main: { ...page, track_total_hits: true, ...(count.aggs ? { aggs: count.aggs } : {}) },
      path: SEARCH_PATH,
    };
  };
  const single = (pre: EngineCall[], path: string, body: Body): EngineCall[] => [
    ...pre,
    { path, body: JSON.stringify(body), contentType: 'application/json' },
  ];
  const msearch = (pre: EngineCall[], parts: [Record<string, unknown>, Body][]): EngineCall[] => [
    ...pre,
    {
      path: `/${index}/_msearch`,
      body: `${parts.flatMap(([h, b]) => [JSON.stringify(h), JSON.stringify(b)]).join('\n')}\n`,
      contentType: 'application/x-ndjson',
    },
  ];
  const ratingFilters = {
    filters: {
      filters: {
        none: { term: { rating: 'none' } },
        moderate: { term: { rating: 'moderate' } },
        violent: { term: { rating: 'violent' } },
      },
    },
  };
  const variants: Record<string, EngineCall[][]> = {
    plain: plain,
    faceted: faceted.map((c) => {
      const { pre, main, path } = last(c);
      return single(pre, path, main);
    }),
    'faceted as the endpoint sends it': faceted,
    'rating as filters': faceted.map((c) => {
      const { pre, main, path } = last(c);
      return single(pre, path, { ...main, aggs: { ...main.aggs, rating: ratingFilters } });
    }),
    'uploader without name sub-agg': faceted.map((c) => {
      const { pre, main, path } = last(c);
      const up = main.aggs!.uploader as Record<string, unknown>;
      return single(pre, path, { ...main, aggs: { ...main.aggs, uploader: { terms: up.terms } } });
    }),
    'only tags agg': faceted.map((c) => {
      const { pre, main, path } = last(c);
      return single(pre, path, { ...main, aggs: { tags: main.aggs!.tags } });
    }),
    'only uploader agg': faceted.map((c) => {
      const { pre, main, path } = last(c);
      return single(pre, path, { ...main, aggs: { uploader: main.aggs!.uploader } });
    }),
    'only rating agg': faceted.map((c) => {
      const { pre, main, path } = last(c);
      return single(pre, path, { ...main, aggs: { rating: main.aggs!.rating } });
    }),
    'msearch page + size-0 facets, request_cache': faceted.map((c) => {
      const { pre, main } = last(c);
      const { aggs, ...page } = main;
      return msearch(pre, [
        [{}, page],
        [{ request_cache: true }, { query: main.query, size: 0, track_total_hits: true, aggs }],
      ]);
    }),
    'msearch page + size-0 facets, no cache': faceted.map((c) => {
      const { pre, main } = last(c);
      const { aggs, ...page } = main;
      return msearch(pre, [
        [{}, page],
        [{ request_cache: false }, { query: main.query, size: 0, track_total_hits: true, aggs }],
      ]);
    }),
    'msearch page (no total) + size-0 total+facets, cache': faceted.map((c) => {
      const { pre, main } = last(c);
      const { aggs, ...page } = main;
      return msearch(pre, [
        [{}, { ...page, track_total_hits: false }],
        [{ request_cache: true }, { query: main.query, size: 0, track_total_hits: true, aggs }],
      ]);
    }),
    'plain: msearch page (no total) + size-0 total, cache': plain.map((c) => {
      const { pre, main } = last(c);
      return msearch(pre, [
        [{}, { ...main, track_total_hits: false }],
        [{ request_cache: true }, { query: main.query, size: 0, track_total_hits: true }],
      ]);
    }),
  };
  if (a.only) {
    const keep = new Set(['plain', ...a.only.split(';').map((s) => s.trim())]);
    for (const name of Object.keys(variants)) if (!keep.has(name)) delete variants[name];
  }
  const eager = (on: boolean) =>
    services.es.indices.putMapping({
      index,
      properties: Object.fromEntries(
        FACET_FIELDS.map((f) => [f, { type: 'keyword', eager_global_ordinals: on }]),
      ) as never,
    });
  if (a.eager) await eager(true);
  if (Number(a.writes) > 0) writer = startWriter(services.es, index, Number(a.writes));
  const states = a['eager-ab'] ? [false, true] : [undefined];
  const key = (name: string, on: boolean | undefined) =>
    on === undefined ? name : `${name}, eager ${on ? 'on' : 'off'}`;
  const rps = new Map<string, number[]>(
    Object.keys(variants).flatMap((k) => states.map((on) => [key(k, on), [] as number[]])),
  );
  for (const [, calls] of Object.entries(variants))
    await closedLoop({ concurrency: 50, durationMs: 1000, task: (i) => replay(esUrl, calls[i % calls.length]) });
  for (let r = 0; r < Number(a.rounds); r++) {
    const names = Object.keys(variants);
    for (const name of r % 2 ? names.reverse() : names) {
      for (const on of r % 2 ? [...states].reverse() : states) {
        if (on !== undefined) await eager(on);
        const run = await closedLoop({
          concurrency: 50,
          durationMs: Number(a.ms),
          task: (i) => replay(esUrl, variants[name][(i * 13 + r) % variants[name].length]),
        });
        if (run.errors) throw new Error(`${name}: ${run.firstError}`);
        rps.get(key(name, on))!.push(run.rps);
        process.stderr.write(`${r} ${key(name, on)}: ${run.rps.toFixed(1)} req/s\n`);
      }
    }
  }
  if (a['eager-ab']) await eager(false);
  const written = await writer?.stop();
  if (written !== undefined)
    process.stdout.write(`background writes: ${written} document updates (${a.writes}/s asked)\n`);
  const base = median(rps.get(key('plain', states[0]))!);
  for (const [name, runs] of rps)
    process.stdout.write(
      `| ${name} | ${median(runs).toFixed(1)} req/s (${runs.map((x) => x.toFixed(0)).join(', ')}) | ${((100 * median(runs)) / base).toFixed(1)} % of plain |\n`,
    );
} finally {
  await writer?.stop();
  if (!kept) await services.es.indices.delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] });
  await services.close();
  if (!kept) fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Updates `perSecond` random documents a second (a field no facet or query here reads), as edits would; resolves with
 * how many.
 */
function startWriter(es: typeof services.es, index: string, perSecond: number): { stop(): Promise<number> } {
  let stopped = false;
  let done = 0;
  const loop = (async () => {
    const ids = (
      await es.search({
        index,
        size: 2000,
        _source: false,
        query: { function_score: { query: { match_all: {} }, random_score: { seed: 28, field: '_seq_no' } } },
      } as never)
    ).hits.hits.map((h) => h._id!);
    while (!stopped) {
      const t = Date.now();
      await es
        .update({ index, id: ids[done % ids.length], doc: { updated_at: new Date().toISOString() } as never })
        .catch(() => undefined);
      done++;
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 / perSecond - (Date.now() - t))));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return done;
    },
  };
}
