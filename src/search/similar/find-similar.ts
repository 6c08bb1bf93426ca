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
  const matches: SimilarMatch[] = [];
  await scanCandidates(postsIndex, segmentsQuery(hash, checkedRadius(maxDiff)), (id, found, createdAt) => {
    const diff = hammingDistance(hash, found);
    if (diff <= maxDiff) matches.push({ id, hash: found, diff, createdAt });
  });
  return matches.sort(byCloseness);
}

function checkedRadius(maxDiff: number): number {
  if (!Number.isInteger(maxDiff) || maxDiff < 0 || maxDiff > MAX_DIFF)
    throw new RangeError(`maxDiff must be 0..${MAX_DIFF}`);
  return segmentRadius(maxDiff);
}

/** A post with at least SEGMENTS_REQUIRED of its four segments within `radius` of `hash`'s. */
function segmentsQuery(hash: string, radius: number) {
  return {
    bool: {
      should: hashSegments(hash).map((segment, i) => ({
        terms: { [`hash_s${i}`]: segmentNeighbours(segment, radius) },
      })),
      minimum_should_match: SEGMENTS_REQUIRED,
    },
  };
}

/** Every post the query matches (search_after over the id, so nothing is lost to a page size). */
async function scanCandidates(
  postsIndex: PostsIndex,
  query: Record<string, unknown>,
  each: (id: string, hash: string, createdAt: string) => void,
): Promise<void> {
  try {
    const pages = scanAll<{ hash: string; created_at: string }>(postsIndex.client, {
      index: postsIndex.alias,
      query,
      source: ['hash', 'created_at'],
    });
    for await (const hits of pages) for (const h of hits) each(h.id, h.source.hash, h.source.created_at);
  } catch (err) {
    translateEsError(err);
  }
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
 * The posts within maxDiff of any of the eight hashes of a picture's symmetries (src/hashing/dihedral.ts),
 * exact in the same way as findWithin. A post near several symmetries is reported once, with its
 * smallest diff; on a tie the earlier name in TRANSFORMS wins (`none` first).
 */
export async function findWithinDihedral(
  postsIndex: PostsIndex,
  hashes: Record<Transform, string>,
  maxDiff: number,
): Promise<TransformedMatch[]> {
  // One search for the eight (a post a candidate under any of them), not eight: a post page asks this on
  // every view, and each search has its fixed cost in the engine and a round trip. Each candidate's
  // closest symmetry is then found here, exactly as eight lookups would (pigeonhole, as findWithin).
  const radius = checkedRadius(maxDiff);
  const query = { bool: { should: TRANSFORMS.map((t) => segmentsQuery(hashes[t], radius)), minimum_should_match: 1 } };
  const matches: TransformedMatch[] = [];
  await scanCandidates(postsIndex, query, (id, hash, createdAt) => {
    let best: { diff: number; transform: Transform } | undefined;
    for (const transform of TRANSFORMS) {
      const diff = hammingDistance(hashes[transform], hash);
      if (diff <= maxDiff && (!best || diff < best.diff)) best = { diff, transform };
    }
    if (best) matches.push({ id, hash, diff: best.diff, createdAt, transform: best.transform });
  });
  return matches.sort(byCloseness);
}
