/**
 * Elasticsearch keyword terms for the robust descriptor (multi-index hashing, like the 64-bit hash's
 * 4 x 16-bit segments). Each 256-bit hash is cut into 256 / bits segments; a term is
 * `<segment>:<hex>` (the segment number keeps equal bits at different places apart).
 *
 *   stored:  `robust_full` = the full hash's terms; `robust_any` = the terms of the full hash and of every window;
 *   lookup:  the query's full-hash terms in `robust_any` OR its window terms in `robust_full`, one
 *            `term` clause each, at least MIN_SHARED of them (src/search/similar/robust-lookup.ts);
 *            then the rest of the rule (src/hashing/robust/rule.ts) on the candidates' descriptors.
 *
 * Pigeonhole would make one shared segment exact only while threshold < 256 / bits; the chosen
 * threshold is beyond it, so the shared-term count is part of the rule itself instead, and
 * bench/robust/check-index.ts measures how many true matches share at least s terms and how many
 * unrelated posts do.
 */

export function segmentCount(bits: number): number {
  if (![8, 16].includes(bits)) throw new RangeError('segments of 8 or 16 bits');
  return 256 / bits;
}

/** The terms of hash number `hashIndex` of a descriptor's words (8 words per hash). */
export function hashTerms(words: Uint32Array, hashIndex: number, bits = 8): string[] {
  const n = segmentCount(bits);
  const per = 32 / bits;
  const mask = (1 << bits) - 1;
  const out: string[] = [];
  for (let s = 0; s < n; s++) {
    const word = words[hashIndex * 8 + Math.floor(s / per)];
    const v = (word >>> ((per - 1 - (s % per)) * bits)) & mask;
    out.push(`${s.toString(16)}:${v.toString(16).padStart(bits / 4, '0')}`);
  }
  return out;
}

/** What a post stores: `robust_full` and `robust_any` (deduplicated). */
export function storedTerms(words: Uint32Array, bits = 8): { robust_full: string[]; robust_any: string[] } {
  const any = new Set<string>();
  for (let h = 0; h < words.length / 8; h++) for (const t of hashTerms(words, h, bits)) any.add(t);
  return { robust_full: hashTerms(words, 0, bits), robust_any: [...any] };
}

/** What a lookup asks: its full hash's terms in `robust_any`, its windows' terms in `robust_full`. */
export function queryTerms(words: Uint32Array, bits = 8): { inAny: string[]; inFull: string[] } {
  const inFull = new Set<string>();
  for (let h = 1; h < words.length / 8; h++) for (const t of hashTerms(words, h, bits)) inFull.add(t);
  return { inAny: hashTerms(words, 0, bits), inFull: [...inFull] };
}

/**
 * The lookup's clauses grouped by segment, as the rule counts them (src/hashing/robust/rule.ts
 * `sharedSegments`): for each segment s, the query's full-hash term (against `robust_any`) and the
 * set of its windows' terms at s (against `robust_full`, where a post has exactly one term per
 * segment, so at most one of the set can match). One clause per group, so the lookup sends 32
 * clauses instead of one per distinct term (about 336), with the same count.
 */
export function querySegments(words: Uint32Array, bits = 8): { inAny: string[]; inFull: string[][] } {
  const n = segmentCount(bits);
  const inFull: Set<string>[] = Array.from({ length: n }, () => new Set());
  for (let h = 1; h < words.length / 8; h++) hashTerms(words, h, bits).forEach((t, s) => inFull[s].add(t));
  return { inAny: hashTerms(words, 0, bits), inFull: inFull.map((set) => [...set]) };
}
