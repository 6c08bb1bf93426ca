/**
 * How condition 4 of the rule (src/robust/rule.ts MAX_CANDIDATES) was chosen, and the
 * alternative measured beside it. Some lookups meet many candidates because a few 16-bit segment
 * values occur in many descriptors (flat regions and plain gradients give the same bit patterns).
 *  1. A stop-list: the K most common values never count as shared. Per K: the true pairs kept (copy
 *     vs its own original within the threshold, the evaluation set) and the candidates per lookup
 *     on a sample of bench/robust-lookup.ts's corpus (same seed, same queries), scaled to 1M posts.
 *  2. A cap: only the N candidates sharing the most terms (ties: lower post number). Per N: the true
 *     pairs whose original would rank N or lower among the candidates at 1M posts.
 *
 *   npx tsx bench/robust/candidates.ts [sample=100000] [K,K,...]
 */
import { readFileSync } from 'node:fs';
import { matchDescriptors } from '../../src/robust/descriptor.ts';
import { MIN_SHARED, PROBE_RADIUS, probes, sharedSegments, THRESHOLD, type Descriptor } from '../../src/robust/rule.ts';
import { Random } from '../../tools/seed/random.ts';
import { loadDescriptor, realDescriptors, SEED, seg, unrelated as unrelatedOf } from './corpus.ts';
import { MANIFEST, type Manifest } from './paths.ts';
import { headerOf, numberArg, parseCli } from '../lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const sample = numberArg(args[0], 100_000);
const levels = (args[1] ?? '0,4,8,12,16,24,32,48,64').split(',').map(Number);

// ---- value frequencies: in how many of the 4,800 real descriptors a value occurs at any segment of any hash
const { files, real, copies } = realDescriptors();
const freq = new Uint32Array(65536);
for (const d of real) {
  const seen = new Set<number>();
  for (let h = 0; h < d.hashes.length / 8; h++) for (let s = 0; s < 16; s++) seen.add(seg(d.hashes, h, s));
  for (const v of seen) freq[v]++;
}
const ranked = [...freq.keys()].sort((a, b) => freq[b] - freq[a] || a - b);
const hex = (v: number) => v.toString(16).padStart(4, '0');
console.log(
  `most common values (share of the ${real.length} real descriptors holding each at some segment of some hash):`,
);
console.log(
  ranked
    .slice(0, Math.max(...levels))
    .map((v) => `${hex(v)} ${((100 * freq[v]) / real.length).toFixed(1)} %`)
    .join(', '),
);

// ---- true pairs kept (as check-index.ts, on the served window set)
const manifest: Manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
const originals = manifest.photos.map((p) => loadDescriptor(`${p.id}.png.json`));
const pairs: [Descriptor, Descriptor][] = [];
for (const f of files.filter((f) => f.split('.').length > 3)) {
  const i = manifest.photos.findIndex((p) => f.startsWith(p.id + '.'));
  const q = loadDescriptor(f);
  if (i >= 0 && matchDescriptors(q, originals[i], THRESHOLD)) pairs.push([q, originals[i]]);
}

// ---- the bench's corpus (bench/robust-lookup.ts, seed 2525), the first `sample` posts kept; its queries
const rnd = new Random(SEED);
const unrelated = (d: Descriptor) => unrelatedOf(rnd, d);
const POSTS = 1_000_000;
const corpus: Uint32Array[] = [];
for (let i = 0; i < POSTS; i++) {
  const d = i < real.length ? real[i] : unrelated(real[rnd.int(0, real.length - 1)]);
  if (i < sample) corpus.push(d.hashes);
  rnd.bits64();
}
const queries = Array.from({ length: 100 }, () => real[copies[rnd.int(0, copies.length - 1)].i]);

// postings: key s*65536+v -> posts holding it in robust_any / robust_full (CSR)
function postings(full: boolean): { start: Uint32Array; list: Uint32Array } {
  const count = new Uint32Array(16 * 65536 + 1);
  const each = (f: (k: number, p: number) => void) =>
    corpus.forEach((w, p) => {
      const seen = new Set<number>();
      for (let h = 0; h < (full ? 1 : w.length / 8); h++)
        for (let s = 0; s < 16; s++) seen.add(s * 65536 + seg(w, h, s));
      for (const k of seen) f(k, p);
    });
  each((k) => count[k + 1]++);
  for (let k = 1; k < count.length; k++) count[k] += count[k - 1];
  const list = new Uint32Array(count[count.length - 1]);
  const fill = count.slice();
  each((k, p) => (list[fill[k]++] = p));
  return { start: count, list };
}
const any = postings(false);
const full = postings(true);
const hits = new Uint8Array(sample);

// Condition 2 as the lookup asks it: each query value's probes (itself and its neighbours within
// PROBE_RADIUS bits), one clause per segment and side, a post counted once per clause.
const mark = new Uint32Array(sample);
let clause = 0;
function candidates(q: Uint32Array, stop: Set<number>): number {
  hits.fill(0);
  const add = (ix: typeof any, k: number) => {
    for (let j = ix.start[k]; j < ix.start[k + 1]; j++) {
      const p = ix.list[j];
      if (mark[p] !== clause) {
        mark[p] = clause;
        hits[p]++;
      }
    }
  };
  for (let s = 0; s < 16; s++) {
    const af = seg(q, 0, s);
    clause++;
    if (!stop.has(af)) for (const v of probes(af)) add(any, s * 65536 + v);
    const ws = new Set<number>();
    for (let h = 1; h < q.length / 8; h++) for (const v of probes(seg(q, h, s))) ws.add(v);
    clause++;
    for (const v of ws) if (!stop.has(v)) add(full, s * 65536 + v);
  }
  let n = 0;
  for (let p = 0; p < sample; p++) if (hits[p] >= MIN_SHARED) n++;
  return n;
}

const scale = POSTS / sample;
const pct = (xs: number[], p: number) =>
  xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
console.log(
  `\n${pairs.length} true pairs within ${THRESHOLD} bits; candidates per lookup on ${sample.toLocaleString('en-US')} posts of the bench corpus, x${scale} for 1M`,
);
console.log(`| stop-list K | true pairs kept (≥ ${MIN_SHARED} shared) | candidates p50 | p90 | p99 | max |`);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const k of levels) {
  const stop = new Set(ranked.slice(0, k));
  const kept = pairs.filter(([q, o]) => sharedSegments(q.hashes, o.hashes, PROBE_RADIUS, stop) >= MIN_SHARED).length;
  const c = queries.map((q) => candidates(q.hashes, stop) * scale);
  console.log(
    `| ${k} | ${((100 * kept) / pairs.length).toFixed(1)} % | ${pct(c, 50)} | ${pct(c, 90)} | ${pct(c, 99)} | ${Math.max(...c)} |`,
  );
}

// ---- a cap instead: the N candidates sharing the most terms (ties: lower post number). For every
// evaluation pair (copy as the query, its original in the corpus), the original's rank among the
// candidates at 1M posts (the 4,800 real descriptors as they are, the sample's others scaled up):
// the pair is lost under a cap of N when its rank is N or more.
const fileIndex = new Map(files.map((f, i) => [f, i]));
const ranks: number[] = [];
const synthScale = (POSTS - real.length) / (sample - real.length);
for (const [fi, f] of files.entries()) {
  if (f.split('.').length <= 3) continue;
  const oi = fileIndex.get(f.split('.')[0] + '.png.json')!;
  const q = real[fi];
  if (!matchDescriptors(q, real[oi], THRESHOLD) || sharedSegments(q.hashes, real[oi].hashes) < MIN_SHARED) continue;
  candidates(q.hashes, new Set());
  const mine = hits[oi];
  let realAbove = 0;
  let synthAbove = 0;
  for (let p = 0; p < sample; p++) {
    if (hits[p] < MIN_SHARED || !(hits[p] > mine || (hits[p] === mine && p < oi))) continue;
    if (p < real.length) realAbove++;
    else synthAbove++;
  }
  ranks.push(realAbove + synthAbove * synthScale);
}
console.log(`\n${ranks.length} true pairs under the rule; their original's rank among the candidates at 1M posts:`);
for (const cap of [250, 500, 1000, 2000, 4000])
  console.log(
    `cap ${cap}: ${ranks.filter((r) => r >= cap).length} lost (${((100 * ranks.filter((r) => r >= cap).length) / ranks.length).toFixed(2)} %)`,
  );
console.log(
  `rank p50 ${pct(ranks, 50).toFixed(0)}, p99 ${pct(ranks, 99).toFixed(0)}, p99.9 ${pct(ranks, 99.9).toFixed(0)}, max ${Math.max(...ranks).toFixed(0)}`,
);
