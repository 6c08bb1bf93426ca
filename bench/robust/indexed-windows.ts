/**
 * Issue 49's question of indexing only some windows' terms (bench/notes/scale.md): which windows each variant
 * keeps, and a descriptor cut down to them. evaluate.ts --indexed-windows measures what a variant costs the
 * robust rule's recall, index-cost.ts what it saves the index; both cut descriptors here, so they study the same
 * thing.
 */

/** The variants: indices into the 20 windows (5 per fraction: left, top, right, bottom, centred). */
export const INDEXED_WINDOWS: { key: string; keep: number[]; describe: string }[] = [
  { key: 'w10', keep: [5, 6, 7, 8, 9], describe: 'the five 10 % windows' },
  { key: 'w10+20', keep: [5, 6, 7, 8, 9, 15, 16, 17, 18, 19], describe: 'the 10 % and 20 % windows' },
  { key: 'w5+15', keep: [0, 1, 2, 3, 4, 10, 11, 12, 13, 14], describe: 'the 5 % and 15 % windows' },
  { key: 'none', keep: [], describe: 'no window (the band window only)' },
];

/**
 * The hashes (8 words each) the index would hold for a descriptor: the full hash, the kept windows and the
 * caption band's window (the 22nd hash, when the descriptor has one).
 */
export function keptWindows(hashes: Uint32Array, keep: number[]): Uint32Array {
  const picks = [0, ...keep.map((i) => 1 + i), ...(hashes.length / 8 > 21 ? [21] : [])];
  const out = new Uint32Array(picks.length * 8);
  picks.forEach((p, i) => out.set(hashes.subarray(p * 8, p * 8 + 8), i * 8));
  return out;
}
