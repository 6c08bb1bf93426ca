/**
 * THE robust match (docs/decisions.md §16): one definition, applied alike by the indexed lookup and by a
 * scan, so the two return exactly the same posts (test/search/robust-differential.test.ts checks it).
 *
 * a (the query) and b (a stored post) are the same picture when
 *   1. both have PDQ quality ≥ MIN_QUALITY (flat or tiny pictures never match), and
 *   2. they share at least MIN_SHARED of the 16 segments (16 bits each) the index holds terms for,
 *      a segment counting as shared when its two values differ in at most PROBE_RADIUS bits, and
 *      counted as the Elasticsearch lookup counts its clauses: each segment s where a's full hash is
 *      that near segment s of any of b's hashes (a `robust_any` clause), plus each segment s where
 *      one of a's windows is that near segment s of b's full hash (a `robust_full` clause), plus
 *      each cell both count (quality ≥ CELL_QUALITY) where the two have an equal 16-bit segment
 *      (a `robust_cell` clause; cells.ts, format 3), and
 *   3. the best compared pair (full/full, a.full/b.window, a.window/b.full) is within THRESHOLD bits,
 *      or else at least CELLS_NEEDED cells at the same places agree (cells.ts: a covered copy),
 *   4. and, for a lookup among many posts, b is one of the MAX_CANDIDATES posts meeting 1 and 2 that
 *      share the most terms with a (see below).
 * Condition 2 is what the index finds exactly: the lookup asks, per segment, the query's values and
 * their one-bit neighbours (`probes`: 17 terms per value, multi-index hashing's usual answer), so
 * stored terms and descriptors are as they were. The variants of condition 2 (none; 2 exactly equal,
 * the rule before; 2, 3 or 4 within 1 bit; 3 within 2 bits) were measured on the evaluation set for
 * recall, goal rows met and the share of unrelated pairs admitted as candidates (bench/robust/RESULTS.md,
 * "The index condition"): three within one bit keeps what the probes win at a fraction of two's
 * candidates, and one exactly equal segment (the first integration) admitted far too many. The probes'
 * price is the lookup's, many more terms a request (bench/notes/robust.md, fourth and fifth passes).
 * MIN_SHARED 2 and PROBE_RADIUS 0 give the exact rule back.
 * The rule counts a descriptor's hashes as they come (the full hash, then windows), so the caption
 * band's window that a descriptor may carry (descriptor.ts, band.ts; since format 2) is a window here, in
 * the distance and in condition 2 alike, and the index's terms include it: with it, the same rule
 * finds caption copies it missed without (bench/notes/robust.md, sixth pass).
 */
import { cellDistance, sharedCells, type Cells } from './cells.ts';
import { matchDescriptors, MIN_QUALITY, type RobustMatch } from './descriptor.ts';

export const THRESHOLD = 72;
/** bits per index segment (16 segments of a 256-bit hash) */
export const SEGMENT_BITS = 16;
/** shared segments a candidate needs (the lookup's `minimum_should_match`) */
export const MIN_SHARED = 3;
/**
 * Condition 2's probe radius: a segment counts as shared when the two 16-bit values differ in at
 * most PROBE_RADIUS bits (the lookup asks for each query value and its neighbours within the radius:
 * `probes`). 0 = exactly equal.
 */
export const PROBE_RADIUS = 1;

/** Condition 2's parameters: THE rule's (INDEX_CONDITION), others only where benches and tests measure them. */
export interface IndexCondition {
  needed: number;
  radius: number;
}
export const INDEX_CONDITION: IndexCondition = { needed: MIN_SHARED, radius: PROBE_RADIUS };
/**
 * Condition 4 (of a lookup, not of a pair): of the posts meeting conditions 1 and 2, only the
 * MAX_CANDIDATES sharing the most terms (then the lowest post numbers: `byShared`) are compared.
 * Common segment values (flat regions, plain gradients) make a few lookups meet up to ~16,000
 * candidates at 1M posts, and returning them all was what bounded the lookup's p99. Sharing many
 * terms is what true copies do: bench/robust/candidates.ts estimates that 0.15 % of the evaluation
 * set's true pairs would rank below 1,000 at 1M posts (none is affected among its 240 originals).
 */
export const MAX_CANDIDATES = 1000;

/** The order of condition 4: more shared terms first, then the lower post number. */
export const byShared = (a: { shared: number; seq: number }, b: { shared: number; seq: number }): number =>
  b.shared - a.shared || a.seq - b.seq;

const NO_STOP: ReadonlySet<number> = new Set();

export interface Descriptor {
  hashes: Uint32Array;
  quality: number;
  /** the cells (cells.ts); absent: an unreadable picture, which never matches anyway */
  cells?: Cells;
}

/** 16-bit segment s (0..15) of hash h of a descriptor's words, as index-terms.ts cuts it. */
const seg = (w: Uint32Array, h: number, s: number): number => (w[h * 8 + (s >> 1)] >>> (s & 1 ? 0 : 16)) & 0xffff;

/** bits set in a 16-bit value */
function popcount16(x: number): number {
  x -= (x >>> 1) & 0x5555;
  x = (x & 0x3333) + ((x >>> 2) & 0x3333);
  x = (x + (x >>> 4)) & 0x0f0f;
  return (x + (x >>> 8)) & 0x1f;
}

/** Whether two segment values count as shared under probe radius r. */
const near = (x: number, y: number, r: number): boolean => x === y || (r > 0 && popcount16(x ^ y) <= r);

/**
 * The values of `bits` bits within Hamming distance `radius` of v (v first): what the lookup asks
 * for one query segment value, so a stored value counts exactly when `near` says so.
 */
export function probes(v: number, radius = PROBE_RADIUS, bits = SEGMENT_BITS): number[] {
  const out = [v];
  const flip = (from: number, x: number, left: number): void => {
    for (let b = from; b < bits; b++) {
      out.push(x ^ (1 << b));
      if (left > 1) flip(b + 1, x ^ (1 << b), left - 1);
    }
  };
  if (radius > 0) flip(0, v, radius);
  return out;
}

/**
 * Condition 2's count: the clauses of the lookup of a that stored post b satisfies (0..32): per
 * segment s, whether a's full hash is within `radius` bits of segment s of any of b's hashes, and
 * whether one of a's windows is within `radius` bits of segment s of b's full hash.
 * `stop`: values never counted (a measured alternative to condition 4, not the rule: bench/robust/candidates.ts).
 */
export function sharedSegments(
  a: Uint32Array,
  b: Uint32Array,
  radius = PROBE_RADIUS,
  stop: ReadonlySet<number> = NO_STOP,
): number {
  const na = a.length / 8;
  const nb = b.length / 8;
  let shared = 0;
  for (let s = 0; s < 16; s++) {
    const af = seg(a, 0, s);
    if (!stop.has(af))
      for (let j = 0; j < nb; j++) {
        if (near(seg(b, j, s), af, radius)) {
          shared++;
          break;
        }
      }
    const bf = seg(b, 0, s);
    if (!stop.has(bf))
      for (let i = 1; i < na; i++) {
        if (near(seg(a, i, s), bf, radius)) {
          shared++;
          break;
        }
      }
  }
  return shared;
}

/**
 * Condition 2's whole count (0..48): the hashes' shared segments (sharedSegments) plus the cells
 * at which the two have an equal segment (cells.ts `sharedCells`: the lookup's `robust_cell`
 * clauses, one per cell of the query with quality ≥ CELL_QUALITY, exact values, no probes).
 */
export function sharedTerms(a: Descriptor, b: Descriptor, radius = PROBE_RADIUS): number {
  return sharedSegments(a.hashes, b.hashes, radius) + (a.cells && b.cells ? sharedCells(a.cells, b.cells) : 0);
}

/**
 * The robust match of query a against stored b, or null. Condition 3 has two ways: the best pair
 * of hashes within `threshold`, or else at least CELLS_NEEDED cells agreeing (cells.ts: a copy
 * with part of the picture covered, kind 'overlay', its distance the deciding cell's bits scaled
 * from 64 to 256, so at most 32 and its score comparable).
 */
export function robustMatch(
  a: Descriptor,
  b: Descriptor,
  threshold = THRESHOLD,
  condition: IndexCondition = INDEX_CONDITION,
): RobustMatch | null {
  if (a.quality < MIN_QUALITY || b.quality < MIN_QUALITY) return null;
  if (a.hashes.length === 0 || b.hashes.length === 0) return null;
  // Distance first: it is the cheaper test and the one most candidates fail (the conditions are ANDed,
  // so the order does not change the answer).
  const m = matchDescriptors(a, b, threshold) ?? cellMatch(a, b);
  return m && sharedTerms(a, b, condition.radius) >= condition.needed ? m : null;
}

function cellMatch(a: Descriptor, b: Descriptor): RobustMatch | null {
  const d = a.cells && b.cells ? cellDistance(a.cells, b.cells) : null;
  return d === null ? null : { distance: d * 4, kind: 'overlay', score: 1 - (d * 4) / 256 };
}
