/**
 * Elasticsearch keyword terms for the robust descriptor (multi-index hashing, like the 64-bit hash's
 * 4 x 16-bit segments). Each 256-bit hash is cut into 256 / bits segments; a term is
 * `<segment>:<hex>` (the segment number keeps equal bits at different places apart).
 *
 *   stored:  `robust_full` = the full hash's terms; `robust_any` = the terms of the full hash and of every window;
 *            `robust_cell` = the counted cells' segment terms (cells.ts `cellTerms`);
 *   lookup:  the query's full-hash terms in `robust_any` OR its window terms in `robust_full`, each
 *            with its neighbours within the rule's probe radius, one `terms` clause per segment and
 *            side, and one per counted cell of the query in `robust_cell`, at least MIN_SHARED of them
 *            (src/search/similar/robust-lookup.ts);
 *            then the rest of the rule (src/robust/rule.ts) on the candidates' descriptors.
 *
 * Pigeonhole would make one shared segment exact only while threshold < 256 / bits; the chosen
 * threshold is beyond it, so the shared-term count is part of the rule itself instead, and
 * bench/robust/check-index.ts measures how many true matches share at least s terms and how many
 * unrelated posts do.
 */
import { CELL_COUNT, CELL_QUALITY, CELL_WORDS, cellTerms, type Cells } from './cells.ts';
import { probes } from './rule.ts';

export function segmentCount(bits: number): number {
  if (![8, 16].includes(bits)) throw new RangeError('segments of 8 or 16 bits');
  return 256 / bits;
}

/** The segment values of hash number `hashIndex` of a descriptor's words (8 words per hash). */
function hashValues(words: Uint32Array, hashIndex: number, bits: number): number[] {
  const n = segmentCount(bits);
  const per = 32 / bits;
  const mask = (1 << bits) - 1;
  const out: number[] = [];
  for (let s = 0; s < n; s++)
    out.push((words[hashIndex * 8 + Math.floor(s / per)] >>> ((per - 1 - (s % per)) * bits)) & mask);
  return out;
}

/** The terms of hash number `hashIndex` of a descriptor's words (8 words per hash). */
export function hashTerms(words: Uint32Array, hashIndex: number, bits = 8): string[] {
  return hashValues(words, hashIndex, bits).map(
    (v, s) => `${s.toString(16)}:${v.toString(16).padStart(bits / 4, '0')}`,
  );
}

/**
 * What a post stores: `robust_full` and `robust_any` (deduplicated), and `robust_cell`: its counted cells' terms
 * (cells.ts).
 */
export function storedTerms(
  words: Uint32Array,
  bits = 8,
  cells?: Cells,
): { robust_full: string[]; robust_any: string[]; robust_cell: string[] } {
  if (bits === 16) return storedTerms16(words, cells);
  const any = new Set<string>();
  for (let h = 0; h < words.length / 8; h++) for (const t of hashTerms(words, h, bits)) any.add(t);
  return {
    robust_full: hashTerms(words, 0, bits),
    robust_any: [...any],
    robust_cell: cells ? cellTerms(cells).flat() : [],
  };
}

/** `<segment>:` for segments 0..15 */
const SEGMENT_PREFIX = Array.from({ length: 16 }, (_, s) => `${s.toString(16)}:`);
/** `<cell><segment>:` for cells 0..15 and their segments 0..3 (cells.ts `cellTerms`) */
const CELL_PREFIX = Array.from({ length: CELL_COUNT * 4 }, (_, i) => `${(i >> 2).toString(16)}${i & 3}:`);
let hex4: string[] | undefined;
let seen: Int32Array | undefined;
let stamp = 0;
/** four hex digits of each 16-bit value, made on first use */
const HEX4 = (): string[] => (hex4 ??= Array.from({ length: 65536 }, (_, v) => v.toString(16).padStart(4, '0')));

/**
 * storedTerms for 16-bit segments, the rule's: the same terms in the same order, made from tables. Every
 * document of a reindex makes some 400 of them, and building each from `toString`, `padStart` and a Set of
 * strings cost Node more than the rest of the document (bench/notes/scale.md).
 */
function storedTerms16(
  words: Uint32Array,
  cells?: Cells,
): { robust_full: string[]; robust_any: string[]; robust_cell: string[] } {
  const hex = HEX4();
  const full: string[] = [];
  const any: string[] = [];
  // A term already taken for this document carries its stamp (a table of every segment and value, reused).
  seen ??= new Int32Array(16 * 65536);
  stamp = (stamp + 1) | 0 || 1;
  for (let h = 0; h < words.length / 8; h++)
    for (let s = 0; s < 16; s++) {
      const v = (words[h * 8 + (s >> 1)] >>> (s & 1 ? 0 : 16)) & 0xffff;
      const key = (s << 16) | v;
      if (h === 0) full.push(SEGMENT_PREFIX[s] + hex[v]);
      if (seen[key] === stamp) continue;
      seen[key] = stamp;
      any.push(SEGMENT_PREFIX[s] + hex[v]);
    }
  const cell: string[] = [];
  if (cells)
    for (let k = 0; k < CELL_COUNT; k++) {
      if (cells.quality[k] < CELL_QUALITY) continue;
      const a = cells.words[k * CELL_WORDS],
        b = cells.words[k * CELL_WORDS + 1];
      cell.push(
        CELL_PREFIX[k * 4] + hex[a >>> 16],
        CELL_PREFIX[k * 4 + 1] + hex[a & 0xffff],
        CELL_PREFIX[k * 4 + 2] + hex[b >>> 16],
        CELL_PREFIX[k * 4 + 3] + hex[b & 0xffff],
      );
    }
  return { robust_full: full, robust_any: any, robust_cell: cell };
}

/** What a lookup asks: its full hash's terms in `robust_any`, its windows' terms in `robust_full`. */
export function queryTerms(words: Uint32Array, bits = 8): { inAny: string[]; inFull: string[] } {
  const inFull = new Set<string>();
  for (let h = 1; h < words.length / 8; h++) for (const t of hashTerms(words, h, bits)) inFull.add(t);
  return { inAny: hashTerms(words, 0, bits), inFull: [...inFull] };
}

/**
 * The lookup's clauses grouped by segment, as the rule counts them (src/robust/rule.ts
 * `sharedSegments`): for each segment s, the query's full-hash value and its neighbours within
 * `radius` bits (`probes`, against `robust_any`), and the same for each of its windows' values at s,
 * as one set (against `robust_full`, where a post has exactly one term per segment, so the clause
 * holds exactly when one window is within the radius). One clause per group, so the lookup sends 32
 * clauses instead of one per distinct term, with the same count.
 */
export function querySegments(words: Uint32Array, bits = 8, radius = 0): { inAny: string[][]; inFull: string[][] } {
  const n = segmentCount(bits);
  const flips = probes(0, radius, bits); // probes(v) is v ^ each of these, in this order
  const hex = bits === 16 ? (v: number) => HEX2[v >>> 8] + HEX2[v & 0xff] : (v: number) => HEX2[v];
  const values = new Set<number>();
  // The terms of segment s within the radius of `of`'s values, each once, in first-seen order
  // (a request's ~5,700 terms: this was a visible part of the lookup's own time, by strings and padStart).
  const near = (s: number, of: Iterable<number>): string[] => {
    values.clear();
    for (const v of of) for (const f of flips) values.add(v ^ f);
    const prefix = `${s.toString(16)}:`;
    const out: string[] = [];
    for (const v of values) out.push(prefix + hex(v));
    return out;
  };
  const inFull: Set<number>[] = Array.from({ length: n }, () => new Set());
  for (let h = 1; h < words.length / 8; h++) hashValues(words, h, bits).forEach((v, s) => inFull[s].add(v));
  return {
    inAny: hashValues(words, 0, bits).map((v, s) => near(s, [v])),
    inFull: inFull.map((set, s) => near(s, set)),
  };
}

/** two hex digits of each byte value */
const HEX2 = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
