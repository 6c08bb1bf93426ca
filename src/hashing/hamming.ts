/** Hamming-distance helpers for 64-bit perceptual hashes stored as '0'/'1' strings. */

const HASH_RE = /^[01]{64}$/;
const SEGMENT_BITS = 16;

function assertHash(hash: string): void {
  if (!HASH_RE.test(hash)) throw new TypeError('hash must be 64 characters of 0/1');
}

/** Number of differing bits between two 64-bit hashes. */
export function hammingDistance(a: string, b: string): number {
  assertHash(a);
  assertHash(b);
  let d = 0;
  for (let i = 0; i < 64; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) d++;
  return d;
}

/** The hash as an unsigned 64-bit integer (first character is the most significant bit). */
export function hashToBigInt(hash: string): bigint {
  assertHash(hash);
  return BigInt('0b' + hash);
}

/**
 * Four 16-bit segments, in order. By pigeonhole, two hashes within distance d have segments within
 * small distances of each other (see find-similar.ts), so an index of segments finds near-duplicates
 * without a full scan.
 */
export function hashSegments(hash: string): [string, string, string, string] {
  assertHash(hash);
  return [hash.slice(0, 16), hash.slice(16, 32), hash.slice(32, 48), hash.slice(48, 64)];
}

/** Every 16-bit string within Hamming distance <= radius of `segment` (itself included, no duplicates). */
export function segmentNeighbours(segment: string, radius: number): string[] {
  if (!/^[01]{16}$/.test(segment)) throw new TypeError('segment must be 16 characters of 0/1');
  if (!Number.isInteger(radius) || radius < 0) throw new RangeError('radius must be a non-negative integer');
  const base = parseInt(segment, 2);
  const out: string[] = [];
  // Flip each combination of up to `radius` distinct bit positions, positions strictly increasing.
  const walk = (value: number, from: number, left: number): void => {
    out.push(value.toString(2).padStart(SEGMENT_BITS, '0'));
    if (left === 0) return;
    for (let bit = from; bit < SEGMENT_BITS; bit++) walk(value ^ (1 << bit), bit + 1, left - 1);
  };
  walk(base, 0, Math.min(radius, SEGMENT_BITS));
  return out;
}
