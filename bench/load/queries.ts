/**
 * The searches people type, for the page-view load (issue 28): a fixed universe of distinct queries
 * in the gallery's own search-box syntax (sent as the search page sends it: the `/image/search` condition
 * `query` in the gallery's spelling, docs/decisions.md §20), drawn with Zipf-distributed popularity: a few queries are
 * asked over and over (what the shard request cache and the browser cache see again), most are rare.
 */
import { Random } from '../../tools/seed/random.ts';
import { WORDS } from '../../tools/seed/words.ts';

export interface Query {
  q: string;
  body: { conditions: { type: string; value: string; spelling: string }[] };
}

/**
 * `n` distinct queries, most popular first: tags (the seeder's popular ones for the popular queries), words
 * (textMatch), phrases, ratings, uploaders.
 */
export function queryUniverse(tags: string[], users: { name: string }[], n = 5000, seed = 28): Query[] {
  const rnd = new Random(seed);
  const seen = new Set<string>();
  const out: Query[] = [];
  // Popular queries name popular tags; rare ones reach into the long tail.
  const tag = (rank: number) =>
    tags[Math.min(tags.length - 1, rnd.skewed(Math.max(20, Math.round((tags.length * (rank + 50)) / n)), 1.3))];
  const word = () => WORDS[rnd.skewed(WORDS.length, 1.4)];
  for (let attempts = 0; out.length < n && attempts < n * 20; attempts++) {
    const rank = out.length;
    const kind = rnd.weighted([
      ['tag', 35],
      ['two tags', 12],
      ['words', 15],
      ['word', 8],
      ['phrase', 6],
      ['tag rating', 8],
      ['by', 6],
      ['tag any', 4],
      ['tag minus', 4],
      ['empty', 2],
    ] as const);
    const parts: string[] = [];
    if (kind === 'tag') parts.push(`+${tag(rank)}`);
    if (kind === 'two tags') parts.push(`+${tag(rank)}`, `+${tag(rank)}`);
    if (kind === 'words') parts.push(word(), word());
    if (kind === 'word') parts.push(word());
    if (kind === 'phrase') parts.push(`"${word()}"`);
    if (kind === 'tag rating') parts.push(`+${tag(rank)}`, `rating:${rnd.pick(['none', 'moderate', 'violent'])}`);
    if (kind === 'by') parts.push(`by:${rnd.pick(users).name}`);
    if (kind === 'tag any') parts.push(`~${tag(rank)}`, `~${tag(rank)}`);
    if (kind === 'tag minus') parts.push(`+${tag(rank)}`, `-${tag(rank)}`);
    if (rnd.chance(0.1) && kind !== 'words' && kind !== 'word') parts.push(rnd.pick(['sort:old', 'sort:new']));
    const q = parts.join(' ');
    if (seen.has(q)) continue;
    seen.add(q);
    out.push({ q, body: { conditions: q ? [{ type: 'query', value: q, spelling: 'gallery' }] : [] } });
  }
  return out;
}

/** Ranks 0..n-1 drawn with probability ∝ 1 / (rank + 1)^s (inverse CDF over a precomputed table). */
export class Zipf {
  private readonly cdf: Float64Array;
  constructor(n: number, s = 1) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let i = 0; i < n; i++) this.cdf[i] = sum += 1 / (i + 1) ** s;
    for (let i = 0; i < n; i++) this.cdf[i] /= sum;
  }

  draw(u: number): number {
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
