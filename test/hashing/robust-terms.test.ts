/**
 * The robust descriptor's index terms (src/robust/index-terms.ts): the 16-bit terms a post stores are
 * built from tables for speed (storedTerms16), and must stay exactly the rule's terms, made the plain
 * way from hashTerms and cellTerms, in the same order: a drift would make stored posts unreachable by
 * the lookup's terms (which are made the plain way) without any test of recall noticing at once.
 */
import test from 'ava';
import { CELL_COUNT, CELL_QUALITY, CELL_WORDS, cellTerms, type Cells } from '../../src/robust/cells.ts';
import { hashTerms, queryTerms, storedTerms } from '../../src/robust/index-terms.ts';

/** A small deterministic generator (xorshift32): the same descriptors on every run. */
function words32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** The plain construction the table-driven one replaced. */
function plainStoredTerms(words: Uint32Array, cells: Cells) {
  const any = new Set<string>();
  for (let h = 0; h < words.length / 8; h++) for (const term of hashTerms(words, h, 16)) any.add(term);
  return { robust_full: hashTerms(words, 0, 16), robust_any: [...any], robust_cell: cellTerms(cells).flat() };
}

test('16-bit stored terms equal the plain construction, in order, for descriptors with repeats and every cell quality', (t) => {
  const next = words32(0x5eed);
  for (let i = 0; i < 500; i++) {
    const hashes = 1 + (i % 12);
    const words = Uint32Array.from({ length: hashes * 8 }, next);
    // Windows that repeat the full hash's segments (a crop that left a window unchanged) and each other's.
    if (i % 3 === 0 && hashes > 1) words.copyWithin(8, 0, 4);
    if (i % 5 === 0 && hashes > 2) words.copyWithin(16, 8, 16);
    const cells: Cells = {
      words: Uint32Array.from({ length: CELL_COUNT * CELL_WORDS }, next),
      // Qualities around the counted threshold, so cells are both kept and left out.
      quality: Uint8Array.from({ length: CELL_COUNT }, () => (next() % 3) + CELL_QUALITY - 1),
    };
    t.deepEqual(storedTerms(words, 16, cells), plainStoredTerms(words, cells), `descriptor ${i}`);
  }
});

test("a stored descriptor's own lookup terms are among its stored terms (the lookup can reach it)", (t) => {
  const next = words32(0xfeed);
  const words = Uint32Array.from({ length: 8 * 9 }, next);
  const stored = storedTerms(words, 16);
  const { inAny, inFull } = queryTerms(words, 16);
  t.deepEqual(inAny, stored.robust_full);
  for (const term of [...inAny, ...inFull]) t.true(stored.robust_any.includes(term), term);
  t.deepEqual(stored.robust_cell, []);
});
