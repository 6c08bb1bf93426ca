import type { PostsIndex } from '../../elasticsearch/posts-index.ts';
import { hammingDistance, hashSegments, segmentNeighbours } from '../../hashing/hamming.ts';
import { scanAll, translateEsError } from '../engine.ts';

export interface SimilarMatch {
  id: string;
  hash: string;
  diff: number;
  createdAt: string;
}

/** maxDiff is at most this: four segments searched with radius 2 guarantee 4 * 2 + 3 = 11 bits. */
export const MAX_DIFF = 11;

/**
 * The per-segment radius that still finds every hash within maxDiff: if two hashes differ in d bits
 * spread over four segments, some segment differs in at most floor(d / 4) bits, so radius
 * ceil((maxDiff - 3) / 4) suffices (0 for near-duplicate checks at 3 bits: exact segment terms).
 */
export const segmentRadius = (maxDiff: number): number => Math.max(0, Math.ceil((maxDiff - 3) / 4));

/**
 * Every indexed post whose hash is within maxDiff bits of `hash`, closest first, then newest, then
 * by id. Multi-index hashing: a post is a candidate when one of its four 16-bit segments is within
 * the radius of ours (terms over `hash_s0..3`); the exact distance on the full hash decides. All
 * candidates are fetched (search_after over the id), so nothing is lost to a page size.
 */
export async function findWithin(postsIndex: PostsIndex, hash: string, maxDiff: number): Promise<SimilarMatch[]> {
  if (!Number.isInteger(maxDiff) || maxDiff < 0 || maxDiff > MAX_DIFF) throw new RangeError(`maxDiff must be 0..${MAX_DIFF}`);
  const radius = segmentRadius(maxDiff);
  const query = {
    bool: {
      should: hashSegments(hash).map((segment, i) => ({ terms: { [`hash_s${i}`]: segmentNeighbours(segment, radius) } })),
      minimum_should_match: 1,
    },
  };
  const matches: SimilarMatch[] = [];
  try {
    const pages = scanAll<{ hash: string; created_at: string }>(postsIndex.client, { index: postsIndex.alias, query, source: ['hash', 'created_at'] });
    for await (const hits of pages) {
      for (const h of hits) {
        const diff = hammingDistance(hash, h.source.hash);
        if (diff <= maxDiff) matches.push({ id: h.id, hash: h.source.hash, diff, createdAt: h.source.created_at });
      }
    }
  } catch (err) {
    translateEsError(err);
  }
  return matches.sort(
    (a, b) => a.diff - b.diff || (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
