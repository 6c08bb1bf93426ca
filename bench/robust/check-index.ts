/**
 * Checks the Elasticsearch term scheme of src/robust/index-terms.ts on the evaluation set's
 * cached descriptors (run evaluate.ts first):
 *
 *   npx tsx bench/robust/check-index.ts [threshold]
 *
 * 1. completeness: every (copy, original) pair within the threshold shares a query term with the
 *    original's stored terms (the index can never miss what a scan finds);
 * 2. selectivity: how many unrelated originals a lookup would fetch as candidates (before the exact
 *    distance), and how many terms a lookup and a post carry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { descriptorFromHex, matchDescriptors, WINDOWS, WINDOW_SETS } from '../../src/robust/descriptor.ts';
import { queryTerms, storedTerms } from '../../src/robust/index-terms.ts';
import { HASH_DIR as HASH_CACHE, MANIFEST, type Manifest } from './paths.ts';
import { headerOf, numberArg, parseCli } from '../lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const threshold = numberArg(args[0], 64);
const bits = numberArg(args[1], 8);
const ALL = WINDOW_SETS.w32;
const pick = [0, ...WINDOWS.map((w) => 1 + ALL.findIndex((a) => a.name === w.name))];
const manifest: Manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
const load = (f: string) => {
  const h = JSON.parse(readFileSync(join(HASH_CACHE, f + '.json'), 'utf8'));
  return { hashes: descriptorFromHex(pick.map((i: number) => h.robust[i])), quality: h.quality as number };
};
const originals = manifest.photos.map((p) => load(`${p.id}.png`));
const stored = originals.map((o) => {
  const t = storedTerms(o.hashes, bits);
  return { full: new Set(t.robust_full), any: new Set(t.robust_any) };
});
const copies = readdirSync(HASH_CACHE)
  .filter((f) => f.split('.').length > 3)
  .map((f) => f.replace(/\.json$/, ''));
const LEVELS = [1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64];
const trueAt = LEVELS.map(() => 0); // true matches (within threshold) with >= s shared terms
const otherAt = LEVELS.map(() => 0); // unrelated originals with >= s shared terms
let within = 0,
  queries = 0,
  qTerms = 0;
for (const f of copies) {
  const i = manifest.photos.findIndex((p) => f.startsWith(p.id + '.'));
  if (i < 0) continue;
  const q = load(f);
  const { inAny, inFull } = queryTerms(q.hashes, bits);
  qTerms += inAny.length + inFull.length;
  queries++;
  originals.forEach((o, j) => {
    const shared =
      inAny.filter((t) => stored[j].any.has(t)).length + inFull.filter((t) => stored[j].full.has(t)).length;
    if (j === i) {
      if (!matchDescriptors(q, o, threshold)) return;
      within++;
      LEVELS.forEach((s, k) => {
        if (shared >= s) trueAt[k]++;
      });
    } else
      LEVELS.forEach((s, k) => {
        if (shared >= s) otherAt[k]++;
      });
  });
}
const perPost = stored.reduce((a, s) => a + s.any.size + s.full.size, 0) / stored.length;
const unrelated = queries * (originals.length - 1);
console.log(
  `threshold ${threshold}, ${WINDOWS.length} windows, ${bits}-bit segments: ${queries} lookups, ${within} true matches within the threshold; terms per lookup ${(qTerms / queries).toFixed(0)}, per post ${perPost.toFixed(0)}`,
);
console.log('| shared terms >= s | true matches kept | unrelated posts fetched (per lookup, per 1M posts) |');
console.log('| --- | --- | --- |');
LEVELS.forEach((s, k) =>
  console.log(
    `| ${s} | ${((100 * trueAt[k]) / within).toFixed(1)} % | ${((100 * otherAt[k]) / unrelated).toFixed(3)} % (${Math.round((otherAt[k] / unrelated) * 1e6)}) |`,
  ),
);
