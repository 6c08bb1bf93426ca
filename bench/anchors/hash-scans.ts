/**
 * Anchors for the similar-image lookup: scans that compare the query with every stored hash.
 *  - stringScan: the original's approach, sharp-phash's distance() over '0'/'1' strings. The hashes
 *    are held in memory, already loaded; the original read them from its database per request, so
 *    this anchor is the faster, generous form of it.
 *  - popcountScan: the best simple in-process alternative, hashes as two Uint32Arrays (high, low
 *    32 bits) compared with XOR and a branch-free popcount.
 */
import { originalDistance } from './sharp-phash-original.ts';

export interface ScanMatch {
  index: number;
  diff: number;
}

export function stringScan(hashes: readonly string[], query: string, maxDiff: number): ScanMatch[] {
  const out: ScanMatch[] = [];
  for (let i = 0; i < hashes.length; i++) {
    const diff = originalDistance(query, hashes[i]);
    if (diff <= maxDiff) out.push({ index: i, diff });
  }
  return out.sort((a, b) => a.diff - b.diff);
}

export interface PackedHashes {
  hi: Uint32Array;
  lo: Uint32Array;
}

export function packHashes(hashes: readonly string[]): PackedHashes {
  const hi = new Uint32Array(hashes.length);
  const lo = new Uint32Array(hashes.length);
  for (let i = 0; i < hashes.length; i++) {
    hi[i] = parseInt(hashes[i].slice(0, 32), 2) >>> 0;
    lo[i] = parseInt(hashes[i].slice(32), 2) >>> 0;
  }
  return { hi, lo };
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export function popcountScan(packed: PackedHashes, query: string, maxDiff: number): ScanMatch[] {
  const qh = parseInt(query.slice(0, 32), 2) >>> 0;
  const ql = parseInt(query.slice(32), 2) >>> 0;
  const { hi, lo } = packed;
  const out: ScanMatch[] = [];
  for (let i = 0; i < hi.length; i++) {
    const diff = popcount32(hi[i] ^ qh) + popcount32(lo[i] ^ ql);
    if (diff <= maxDiff) out.push({ index: i, diff });
  }
  return out.sort((a, b) => a.diff - b.diff);
}
