/**
 * Issue 49's study of multi-index hashing layouts for the similar lookup, against the typed-array
 * popcount scan, on a scratch index of N bare hash documents (no other fields, so the figures are
 * the layouts' own; the corpus's posts index carries much more per document).
 *
 *   npx tsx bench/similar-layouts.ts --posts 1000000 [--queries 400] [--keep]
 *
 * Layouts (bench/notes/scale.md, "candidates per query for each layout"):
 *  - `4x16-2of4`: what the service does (src/search/similar/find-similar.ts): four 16-bit segments,
 *    two within ⌊d/3⌋, candidates' `hash` from `_source`, the exact distance in process.
 *  - `3x22-1of3`: three segments of 22, 21 and 21 bits, one within ⌊d/3⌋, the candidates' `hash`
 *    from `_source`, the exact distance in process. Fewer, longer postings: every posting read is a
 *    candidate. (`-docvalues`: the hash from doc values instead of `_source`.) The node has no
 *    scripting module, so the exact distance cannot be a filter inside Elasticsearch.
 * Every layout's answers are checked against the scan for every query. Queries: half a planted
 * cluster's base with 0–3 bits flipped, half random (as bench/similar.ts).
 */
import { Client } from '@elastic/elasticsearch';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Random } from '../tools/seed/random.ts';
import { packHashes, popcountScan } from './anchors/hash-scans.ts';
import { summarize } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '400' },
    keep: { type: 'boolean', default: false },
    es: { type: 'string', default: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277' },
  },
});
const N = Number(values.posts);
const Q = Number(values.queries);
const index = `bench-similar-layouts-${N}`;
const client = new Client({ node: values.es });

const SPLITS3 = [0, 22, 43, 64];
const seg4 = (h: string) => [0, 1, 2, 3].map((i) => h.slice(i * 16, i * 16 + 16));
const seg3 = (h: string) => [0, 1, 2].map((i) => h.slice(SPLITS3[i], SPLITS3[i + 1]));

function neighbours(segment: string, radius: number): string[] {
  const out: string[] = [];
  const walk = (s: string, from: number, left: number) => {
    out.push(s);
    if (left === 0) return;
    for (let i = from; i < s.length; i++)
      walk(s.slice(0, i) + (s[i] === '0' ? '1' : '0') + s.slice(i + 1), i + 1, left - 1);
  };
  walk(segment, 0, radius);
  return out;
}

function corpus(): { hashes: string[]; bases: string[] } {
  const rnd = new Random(49);
  const hashes: string[] = [];
  const bases: string[] = [];
  while (hashes.length < N) {
    if (hashes.length % 100 === 0) {
      const base = rnd.bits64();
      bases.push(base);
      for (let i = 0; i < 5 && hashes.length < N; i++) hashes.push(rnd.flipBits(base, rnd.int(0, 4)));
    } else hashes.push(rnd.bits64());
  }
  return { hashes, bases };
}

async function load(hashes: string[]): Promise<void> {
  if (await client.indices.exists({ index })) {
    const { count } = await client.count({ index });
    if (count === N) return;
    await client.indices.delete({ index });
  }
  const keyword = { type: 'keyword' } as const;
  await client.indices.create({
    index,
    settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' },
    mappings: {
      dynamic: 'strict',
      properties: {
        hash: { type: 'keyword', index: false },
        hash_s0: keyword,
        hash_s1: keyword,
        hash_s2: keyword,
        hash_s3: keyword,
        hash_t0: keyword,
        hash_t1: keyword,
        hash_t2: keyword,
      },
    },
  });
  const t0 = performance.now();
  for (let from = 0; from < N; from += 5000) {
    const operations: object[] = [];
    for (let i = from; i < Math.min(N, from + 5000); i++) {
      const h = hashes[i];
      const [s0, s1, s2, s3] = seg4(h);
      const [t0_, t1, t2] = seg3(h);
      operations.push({ index: { _index: index, _id: String(i) } });
      const doc = { hash: h, hash_s0: s0, hash_s1: s1, hash_s2: s2, hash_s3: s3 };
      operations.push({ ...doc, hash_t0: t0_, hash_t1: t1, hash_t2: t2 });
    }
    const r = await client.bulk({ operations });
    if (r.errors) throw new Error('bulk errors');
    if (from % 100000 === 0)
      process.stderr.write(`loaded ${from}/${N} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  await client.indices.refresh({ index });
  await client.indices.forcemerge({ index, max_num_segments: 1 });
  await client.indices.refresh({ index });
}

type Layout = (q: string, d: number) => Promise<string[]>;

/**
 * A lookup over `fields` (one per segment, `segments` splitting the query), `required` of them within
 * ⌊d/3⌋ bits, the candidates' hash from `_source` or from doc values, the exact distance in process.
 */
function layout(fields: string, segments: (h: string) => string[], required: number, docValues: boolean): Layout {
  return async (q, d) => {
    const r = Math.floor(d / 3);
    const res = await client.search<{ hash: string }>({
      index,
      size: 10000,
      ...(docValues ? { _source: false, docvalue_fields: ['hash'] } : { _source: ['hash'] }),
      query: {
        bool: {
          should: segments(q).map((s, i) => ({ terms: { [`${fields}${i}`]: neighbours(s, r) } })),
          minimum_should_match: required,
        },
      },
    });
    const out: string[] = [];
    for (const h of res.hits.hits) {
      const hash = docValues ? (h.fields as { hash: string[] }).hash[0] : h._source!.hash;
      if (distance(q, hash) <= d) out.push(h._id!);
    }
    return out;
  };
}

const layouts: Record<string, Layout> = {
  '4x16-2of4': layout('hash_s', seg4, 2, false),
  '3x22-1of3': layout('hash_t', seg3, 1, false),
  '3x22-1of3-docvalues': layout('hash_t', seg3, 1, true),
};

function distance(a: string, b: string): number {
  let n = 0;
  for (let i = 0; i < 64; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) n++;
  return n;
}

async function main(): Promise<void> {
  const { hashes, bases } = corpus();
  await load(hashes);
  const packed = packHashes(hashes);
  const rnd = new Random(4242);
  const query = (i: number) => (i % 2 === 0 ? rnd.flipBits(rnd.pick(bases), rnd.int(0, 3)) : rnd.bits64());
  const qs = Array.from({ length: Q }, (_, i) => query(i));
  for (const d of [8, 3]) {
    const scanMs: number[] = [];
    const expected: string[] = [];
    for (const q of qs) {
      const t = performance.now();
      const m = popcountScan(packed, q, d);
      scanMs.push(performance.now() - t);
      expected.push(
        m
          .map((x) => String(x.index))
          .sort()
          .join(),
      );
    }
    const row: Record<string, unknown> = { posts: N, maxDiff: d, scan: pick(summarize(scanMs)) };
    for (const [name, layout] of Object.entries(layouts)) {
      const ms: number[] = [];
      let agrees = true;
      for (let round = 0; round < 2; round++) {
        ms.length = 0;
        for (let i = 0; i < qs.length; i++) {
          const t = performance.now();
          const ids = await layout(qs[i], d);
          ms.push(performance.now() - t);
          if (ids.sort().join() !== expected[i]) agrees = false;
        }
      }
      row[name] = { ...pick(summarize(ms)), agrees };
    }
    console.log(JSON.stringify(row));
  }
  if (!values.keep) await client.indices.delete({ index });
}

const pick = (s: { p50: number; p99: number; n: number }) => ({
  n: s.n,
  p50: +s.p50.toFixed(3),
  p99: +s.p99.toFixed(3),
});

await main();
