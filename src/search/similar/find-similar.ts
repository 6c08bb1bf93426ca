import type { PostsIndex } from '../../elasticsearch/posts-index.ts';
import { TRANSFORMS, type Transform } from '../../hashing/dihedral.ts';
import { hammingDistance, hashSegments, segmentNeighbours } from '../../hashing/hamming.ts';
import { scanAll, translateEsError } from '../engine.ts';

export interface SimilarMatch {
  id: string;
  hash: string;
  diff: number;
  createdAt: string;
}

/** maxDiff is at most this (docs/decisions.md §5); the lookup itself would work for any distance. */
export const MAX_DIFF = 11;

/**
 * How many of the four 16-bit segments must lie within `segmentRadius` of ours. Two hashes within
 * d bits split those bits over four segments; sorted, d1 <= d2 <= d3 <= d4 and d2 + d3 + d4 <= d,
 * so d2 <= floor(d / 3): at least two segments are within floor(d / 3) bits. Asking for two
 * segments instead of one keeps every match and shrinks the candidates from about
 * 4 * terms * N / 65,536 to about 6 * (terms / 65,536)^2 * N (at maxDiff 8 and 1M posts: ~8,400
 * candidates down to ~26), which is what keeps the lookup fast on a large corpus.
 */
export const SEGMENTS_REQUIRED = 2;
export const segmentRadius = (maxDiff: number): number => Math.floor(maxDiff / 3);

/**
 * Every indexed post whose hash is within maxDiff bits of `hash`, closest first, then newest, then
 * by id. Multi-index hashing: a post is a candidate when two of its four 16-bit segments are within
 * the radius of ours (terms over `hash_s0..3`); the exact distance on the full hash decides. All
 * candidates are fetched (search_after over the id), so nothing is lost to a page size.
 */
export async function findWithin(postsIndex: PostsIndex, hash: string, maxDiff: number): Promise<SimilarMatch[]> {
  if (!Number.isInteger(maxDiff) || maxDiff < 0 || maxDiff > MAX_DIFF)
    throw new RangeError(`maxDiff must be 0..${MAX_DIFF}`);
  const radius = segmentRadius(maxDiff);
  const query = {
    bool: {
      should: hashSegments(hash).map((segment, i) => ({
        terms: { [`hash_s${i}`]: segmentNeighbours(segment, radius) },
      })),
      minimum_should_match: SEGMENTS_REQUIRED,
    },
  };
  const matches: SimilarMatch[] = [];
  try {
    const pages = scanAll<{ hash: string; created_at: string }>(postsIndex.client, {
      index: postsIndex.alias,
      query,
      source: ['hash', 'created_at'],
    });
    for await (const hits of pages) {
      for (const h of hits) {
        const diff = hammingDistance(hash, h.source.hash);
        if (diff <= maxDiff) matches.push({ id: h.id, hash: h.source.hash, diff, createdAt: h.source.created_at });
      }
    }
  } catch (err) {
    translateEsError(err);
  }
  return matches.sort(byCloseness);
}

/** closest first, then newest, then by id */
const byCloseness = (a: SimilarMatch, b: SimilarMatch): number =>
  a.diff - b.diff ||
  (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export interface TransformedMatch extends SimilarMatch {
  transform: Transform;
}

/**
 * `findWithin` for each of the eight hashes of the upload's symmetries (src/hashing/dihedral.ts),
 * so exact in the same way. A post found under several symmetries is reported once, with its
 * smallest diff; on a tie the earlier name in TRANSFORMS wins (`none` first).
 */
export async function findWithinDihedral(
  postsIndex: PostsIndex,
  hashes: Record<Transform, string>,
  maxDiff: number,
): Promise<TransformedMatch[]> {
  const perTransform = await Promise.all(TRANSFORMS.map((t) => findWithin(postsIndex, hashes[t], maxDiff)));
  const best = new Map<string, TransformedMatch>();
  TRANSFORMS.forEach((transform, i) => {
    for (const m of perTransform[i]) {
      const seen = best.get(m.id);
      if (!seen || m.diff < seen.diff) best.set(m.id, { ...m, transform });
    }
  });
  return [...best.values()].sort(byCloseness);
}
