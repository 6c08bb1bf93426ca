/**
 * THE robust match (decisions §16): one definition, applied alike by the indexed lookup and by a
 * scan, so the two return exactly the same posts (the differential test checks it).
 *
 * a (the query) and b (a stored post) are the same picture when
 *   1. both have PDQ quality ≥ MIN_QUALITY (flat or tiny pictures never match), and
 *   2. they share at least one 16-bit segment term the index holds: one of a's full-hash segments
 *      equals the same segment of any of b's hashes (`robust_any`), or one of a's window segments
 *      equals the same segment of b's full hash (`robust_full`), and
 *   3. the best compared pair (full/full, a.full/b.window, a.window/b.full) is within THRESHOLD bits.
 * Condition 2 is what the Elasticsearch terms can find exactly; at 72 bits a pair need not share a
 * segment (72 > 16 segments), so without it the index would be an approximation of the rule.
 * bench/robust/RESULTS.md gives recall and false matches under this rule.
 */
import { matchDescriptors, MIN_QUALITY, type RobustMatch } from './descriptor.ts';

export const THRESHOLD = 72;
/** bits per index segment (16 segments of a 256-bit hash) */
export const SEGMENT_BITS = 16;

export interface Descriptor {
  hashes: Uint32Array;
  quality: number;
}

/** 16-bit segment s (0..15) of hash h of a descriptor's words, as index-terms.ts cuts it. */
const seg = (w: Uint32Array, h: number, s: number): number => (w[h * 8 + (s >> 1)] >>> (s & 1 ? 0 : 16)) & 0xffff;

/** Condition 2: the query's terms meet the stored post's terms. */
export function sharesSegment(a: Uint32Array, b: Uint32Array): boolean {
  const na = a.length / 8;
  const nb = b.length / 8;
  for (let s = 0; s < 16; s++) {
    const af = seg(a, 0, s);
    for (let j = 0; j < nb; j++) if (seg(b, j, s) === af) return true;
    const bf = seg(b, 0, s);
    for (let i = 1; i < na; i++) if (seg(a, i, s) === bf) return true;
  }
  return false;
}

/** The robust match of query a against stored b, or null. */
export function robustMatch(a: Descriptor, b: Descriptor, threshold = THRESHOLD): RobustMatch | null {
  if (a.quality < MIN_QUALITY || b.quality < MIN_QUALITY) return null;
  if (!sharesSegment(a.hashes, b.hashes)) return null;
  return matchDescriptors(a, b, threshold);
}
