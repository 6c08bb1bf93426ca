/**
 * Issue 49's study of what a robust descriptor costs Elasticsearch to index (bench/notes/scale.md, "A descriptor
 * on every post"): the posts of a kept corpus (bench/load/corpus.ts, a descriptor on every post) loaded by raw
 * `_bulk` into scratch indexes of the posts mapping and variants of it, taking turns round by round, so the
 * shares of one run compare on a shared box.
 *
 *   npx tsx bench/robust/index-cost.ts --corpus DIR [--posts 20000] [--rounds 2] [--variants a,b] [--disk]
 *
 * Variants (the same terms everywhere: only how they reach Lucene differs):
 *  - `keyword`: the posts mapping as it is (mapping 12): `robust_full`, `robust_any`, `robust_cell` keyword arrays.
 *  - `none`: the same documents without robust terms (the floor).
 *  - `keyword-nosrc`: keyword arrays, left out of `_source`.
 *  - `text`: each robust field one string of its terms separated by spaces, a `text` field with the whitespace
 *    analyzer (docs only, no norms): one field value instead of hundreds.
 *  - `text-nosrc`: `text`, left out of `_source`.
 *  - `split`: the posts without robust terms in one index, the terms (`text-nosrc`'s fields and `seq`) in a
 *    second, both loaded at once (a second index filled in parallel).
 *  - `keyword-r30`, `keyword-nosrc-r30`: those two with a refresh every 30 s instead of every second.
 *  - `long-nosrc`: each term as one number (segment and value) in a `long` field (points, no doc values).
 *  - `lowcard-nosrc` (a diagnostic, not a usable index): as many terms with 8-bit values, 256 times fewer distinct.
 *  - `nowindows-nosrc`: `robust_any` with the full hash's terms only (no window's).
 *  - `w10+20`, `w10`: `robust_any` with the full hash's, the caption band window's and only those windows' terms
 *    (the 10 % and 20 % ones, or the 10 % ones), left out of `_source`: bench/robust/evaluate.ts --indexed-windows
 *    measures what they would cost the rule's recall.
 * Bodies are built before the clock starts (the building is timed on its own: `build ms/1000`); a variant's
 * figure is the wall time of its load, 1,000 posts a request, two requests in flight (as `imgpost reindex`),
 * then a refresh. `--disk`: after the load, a flush and a merge to one segment, and the index's size.
 */
import { performance } from 'node:perf_hooks';
import { readPostsMapping } from '../../src/elasticsearch/posts-index.ts';
import { toPostDocument, type PostDocument } from '../../src/elasticsearch/post-document.ts';
import { decodeDescriptor } from '../../src/robust/format.ts';
import { storedTerms } from '../../src/robust/index-terms.ts';
import { SEGMENT_BITS } from '../../src/robust/rule.ts';
import { TaskGroup } from '../../src/util/limit.ts';
import { headerOf, parseCli } from '../lib/cli.ts';
import { keptCorpusJob } from '../load/corpus.ts';
import { INDEXED_WINDOWS, keptWindows } from './indexed-windows.ts';
import { fmt, median } from '../lib/stats.ts';

const { values } = parseCli({
  usage: headerOf(import.meta.url),
  options: {
    corpus: { type: 'string' },
    posts: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '2' },
    variants: { type: 'string', default: 'keyword,none,keyword-nosrc,text,text-nosrc,split' },
    disk: { type: 'boolean', default: false },
  },
});
if (!values.corpus) throw new Error('--corpus DIR is required');
const POSTS = Number(values.posts);
const ROUNDS = Number(values.rounds);
const BATCH = 1000;
const log = (line: string) => process.stderr.write(`[index-cost ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const { corpus, job } = await keptCorpusJob(values.corpus);
const es = job.postsIndex.client;
const esUrl = corpus.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';

const ROBUST = ['robust_full', 'robust_any', 'robust_cell'] as const;
type Doc = Record<string, unknown>;

// The documents, once (the reindex's own path: records, their descriptors, toPostDocument).
const docs: { id: string; version: number; doc: PostDocument; robust?: Buffer }[] = [];
let buildMs = 0;
for (const records of job.postRepository.batches(BATCH)) {
  const t0 = performance.now();
  const robust = job.postRepository.robust.ofSeqs(records.map((r) => r.seq));
  for (const r of records)
    docs.push({ id: r.id, version: r.version, doc: toPostDocument(r, robust.get(r.seq)), robust: robust.get(r.seq) });
  buildMs += performance.now() - t0;
  if (docs.length >= POSTS) break;
}
docs.length = Math.min(docs.length, POSTS);
const withTerms = docs.filter((d) => d.doc.robust_any.length > 0).length;
log(
  `${docs.length} documents (${withTerms} with robust terms), built in ${fmt((buildMs / docs.length) * 1000)} ms/1000`,
);

const base = readPostsMapping();
const props = (base.mappings as { properties: Record<string, unknown> }).properties;
const textField = { type: 'text', analyzer: 'whitespace', index_options: 'docs', norms: false };
const withoutRobust = (d: Doc): Doc => {
  const out = { ...d };
  for (const f of ROBUST) delete out[f];
  return out;
};
const joined = (d: Doc): Doc => {
  const out = { ...d };
  for (const f of ROBUST) out[f] = (d[f] as string[]).join(' ');
  return out;
};

interface Target {
  suffix: string;
  mappings: Record<string, unknown>;
  /** index settings over the posts mapping's */
  settings?: Record<string, unknown>;
  doc: (d: PostDocument, entry: { doc: PostDocument; robust?: Buffer }) => Doc;
}
// The posts mapping's fields; whether `_source` keeps the robust terms is the variant's.
const { _source: _kept, ...plain } = base.mappings;
const mapping = (over: Record<string, unknown>, source?: unknown): Record<string, unknown> => ({
  ...plain,
  ...(source ? { _source: source } : {}),
  properties: { ...props, ...over },
});
const NOSRC = { excludes: [...ROBUST] };
const textProps = Object.fromEntries(ROBUST.map((f) => [f, textField]));
/** a term `<segment>:<hex>` (or a cell's `<cell><segment>:<hex>`) as one number: the place above the 16-bit value */
const termNumber = (t: string): number => {
  const [place, hex] = t.split(':');
  const p = place.length === 1 ? Number.parseInt(place, 16) : Number.parseInt(place[0], 16) * 4 + Number(place[1]);
  return p * 65536 + Number.parseInt(hex, 16);
};
const numbers = (d: Doc): Doc => {
  const out = { ...d };
  for (const f of ROBUST) out[f] = (d[f] as string[]).map(termNumber);
  return out;
};
/** diagnostic: the same number of terms with 256 times fewer distinct ones (8 of the 16 bits) */
const lowCard = (d: Doc): Doc => {
  const out = { ...d };
  for (const f of ROBUST) out[f] = (d[f] as string[]).map((t) => t.slice(0, -2)).join(' ');
  return out;
};
/**
 * `robust_any` with the terms of one of indexed-windows.ts's variants only (the full hash's and the caption band
 * window's always): bench/robust/evaluate.ts's `indexed-*` rules.
 */
const someWindows = (key: string): Target['doc'] => {
  const { keep } = INDEXED_WINDOWS.find((w) => w.key === key)!;
  return (doc, { robust }) => {
    const desc = decodeDescriptor(robust);
    if (!desc || desc.hashes.length === 0) return doc as unknown as Doc;
    return {
      ...(doc as unknown as Doc),
      robust_any: storedTerms(keptWindows(desc.hashes, keep), SEGMENT_BITS).robust_any,
    };
  };
};
const longProps = Object.fromEntries(ROBUST.map((f) => [f, { type: 'long', doc_values: false }]));
const VARIANTS: Record<string, Target[]> = {
  'w10+20': [{ suffix: 'p', mappings: mapping({}, NOSRC), doc: someWindows('w10+20') }],
  w10: [{ suffix: 'p', mappings: mapping({}, NOSRC), doc: someWindows('w10') }],
  'long-nosrc': [{ suffix: 'p', mappings: mapping(longProps, NOSRC), doc: (d) => numbers(d as unknown as Doc) }],
  'lowcard-nosrc': [{ suffix: 'p', mappings: mapping(textProps, NOSRC), doc: (d) => lowCard(d as unknown as Doc) }],
  'nowindows-nosrc': [
    {
      suffix: 'p',
      mappings: mapping(textProps, NOSRC),
      doc: (d) => joined({ ...(d as unknown as Doc), robust_any: d.robust_full }),
    },
  ],
  keyword: [{ suffix: 'p', mappings: mapping({}), doc: (d) => d as unknown as Doc }],
  'keyword-r30': [
    { suffix: 'p', mappings: mapping({}), settings: { refresh_interval: '30s' }, doc: (d) => d as unknown as Doc },
  ],
  'keyword-nosrc-r30': [
    {
      suffix: 'p',
      mappings: mapping({}, NOSRC),
      settings: { refresh_interval: '30s' },
      doc: (d) => d as unknown as Doc,
    },
  ],
  none: [{ suffix: 'p', mappings: mapping({}), doc: (d) => withoutRobust(d as unknown as Doc) }],
  'keyword-nosrc': [{ suffix: 'p', mappings: mapping({}, NOSRC), doc: (d) => d as unknown as Doc }],
  text: [{ suffix: 'p', mappings: mapping(textProps), doc: (d) => joined(d as unknown as Doc) }],
  'text-nosrc': [{ suffix: 'p', mappings: mapping(textProps, NOSRC), doc: (d) => joined(d as unknown as Doc) }],
  split: [
    { suffix: 'p', mappings: mapping({}), doc: (d) => withoutRobust(d as unknown as Doc) },
    {
      suffix: 'r',
      mappings: { dynamic: 'strict', _source: NOSRC, properties: { seq: { type: 'long' }, ...textProps } },
      doc: (d) => ({ seq: d.seq, ...Object.fromEntries(ROBUST.map((f) => [f, d[f].join(' ')])) }),
    },
  ],
};

const names = values.variants.split(',');
for (const n of names) if (!VARIANTS[n]) throw new Error(`unknown variant ${n}`);

/** NDJSON bodies of one target, BATCH posts each, with the reindex's external versions. */
function bodies(t: Target, index: string): { body: string; bytes: number }[] {
  const out: { body: string; bytes: number }[] = [];
  for (let i = 0; i < docs.length; i += BATCH) {
    const lines: string[] = [];
    for (const d of docs.slice(i, i + BATCH)) {
      lines.push(JSON.stringify({ index: { _index: index, _id: d.id, version: d.version, version_type: 'external' } }));
      lines.push(JSON.stringify(t.doc(d.doc, d)));
    }
    const body = `${lines.join('\n')}\n`;
    out.push({ body, bytes: Buffer.byteLength(body) });
  }
  return out;
}

async function send(body: string): Promise<void> {
  const res = await fetch(`${esUrl}/_bulk?filter_path=errors,items.*.error`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body,
  });
  const json = (await res.json()) as { errors: boolean; items?: unknown[] };
  if (!res.ok || json.errors) throw new Error(`bulk refused: ${JSON.stringify(json).slice(0, 500)}`);
}

/** a loaded shared node can take far longer than the client's default 10 s for these */
const LONG = { requestTimeout: 3_600_000 };

interface Figure {
  seconds: number;
  docsPerSecond: number;
  bytesPerDoc: number;
  storeBytes?: number;
}
const figures: Record<string, Figure[]> = Object.fromEntries(names.map((n) => [n, []]));

async function run(name: string, round: number): Promise<Figure> {
  const targets = VARIANTS[name];
  const indices = targets.map((t) => `bench-descindex-${process.pid}-${name}-${t.suffix}-${round}`);
  for (const [i, t] of targets.entries())
    await es.indices.create(
      {
        index: indices[i],
        settings: { ...base.settings, number_of_replicas: 0, auto_expand_replicas: 'false', ...t.settings },
        mappings: t.mappings as never,
      },
      LONG,
    );
  const prepared = targets.map((t, i) => bodies(t, indices[i]));
  const bytes = prepared.flat().reduce((s, b) => s + b.bytes, 0);
  try {
    const t0 = performance.now();
    // Two requests in flight per index, as the reindex sends them.
    await Promise.all(
      prepared.map(async (list) => {
        const group = new TaskGroup(2);
        for (const b of list) await group.start(() => send(b.body));
        await group.all();
      }),
    );
    await es.indices.refresh({ index: indices }, LONG);
    const seconds = (performance.now() - t0) / 1000;
    let storeBytes: number | undefined;
    if (values.disk) {
      // Merged in the background and polled: a merge of these on a loaded node outlasts an HTTP request.
      await es.indices.forcemerge({ index: indices, max_num_segments: 1, wait_for_completion: false }, LONG);
      for (;;) {
        const stats = await es.indices.stats({ index: indices, metric: ['store', 'segments', 'merge'] }, LONG);
        const p = stats.indices ?? {};
        if (Object.values(p).every((i) => i.primaries?.segments?.count === 1 && i.primaries?.merges?.current === 0)) {
          storeBytes = stats._all.primaries?.store?.size_in_bytes;
          break;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    return { seconds, docsPerSecond: docs.length / seconds, bytesPerDoc: bytes / docs.length, storeBytes };
  } finally {
    await es.indices.delete({ index: indices }, { ignore: [404], ...LONG });
  }
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in another order, so no variant always follows the same one.
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const f = await run(name, round);
      figures[name].push(f);
      log(
        `round ${round + 1} ${name}: ${fmt(f.docsPerSecond)} posts/s (${fmt(f.seconds)} s, ${fmt(f.bytesPerDoc)} B/post of NDJSON${
          f.storeBytes === undefined ? '' : `, ${fmt(f.storeBytes / docs.length)} B/post on disk merged`
        })`,
      );
    }
  }
  const none = median(figures.none?.map((f) => f.docsPerSecond) ?? [NaN]);
  process.stdout.write(
    `| variant | posts/s (median of ${ROUNDS}) | each round | NDJSON B/post | disk B/post (merged) | ÷ none |\n|---|---|---|---|---|---|\n`,
  );
  for (const n of names) {
    const fs_ = figures[n];
    const m = median(fs_.map((f) => f.docsPerSecond));
    const disk = fs_.map((f) => f.storeBytes).filter((b): b is number => b !== undefined);
    process.stdout.write(
      `| ${n} | ${fmt(m)} | ${fs_.map((f) => fmt(f.docsPerSecond)).join(', ')} | ${fmt(fs_[0].bytesPerDoc)} | ${
        disk.length ? fmt(median(disk) / docs.length) : '–'
      } | ${fmt(m / none)} |\n`,
    );
  }
} finally {
  await job.close();
}
