/**
 * bench/robust-lookup.ts's corpus, shared with bench/robust/candidates.ts (which samples it): the
 * evaluation set's real descriptors (cached by evaluate.ts) and unrelated ones made from them.
 */
import fs from 'node:fs';
import { join } from 'node:path';
import { descriptorFromHex, WINDOWS, WINDOW_SETS } from '../../src/robust/descriptor.ts';
import { CELL_COUNT, CELL_WORDS, type Cells } from '../../src/robust/cells.ts';
import { fromHex } from '../../src/robust/pdq.ts';
import type { Descriptor } from '../../src/robust/rule.ts';
import type { Random } from '../../tools/seed/random.ts';
import { HASH_DIR } from './paths.ts';

/** The seed of the corpus and of its queries. */
export const SEED = 2525;

// The cached hashes carry the w32 windows; the descriptor's are a subset (as check-index.ts picks them),
// then the caption band's window when the picture has one, and the cells (the served descriptor, format 3).
export const DIR = HASH_DIR;
const ALL = WINDOW_SETS.w32;
const pick = [0, ...WINDOWS.map((w) => 1 + ALL.findIndex((a) => a.name === w.name))];
export const loadDescriptor = (file: string): Descriptor => {
  const h = JSON.parse(fs.readFileSync(join(DIR, file), 'utf8')) as {
    robust: string[];
    quality: number;
    band: string | null;
    cells?: { words: string; quality: number[] };
  };
  if (h.cells === undefined) throw new Error(`${file}: cached before the cells; run bench/robust/evaluate.ts`);
  return {
    hashes: descriptorFromHex([...pick.map((i) => h.robust[i]), ...(h.band ? [h.band] : [])]),
    quality: h.quality,
    cells: { words: fromHex(h.cells.words), quality: Uint8Array.from(h.cells.quality) },
  };
};

/** Every cached descriptor (originals and copies, by file name), and which of them are copies. */
export function realDescriptors(): { files: string[]; real: Descriptor[]; copies: { f: string; i: number }[] } {
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return {
    files,
    real: files.map(loadDescriptor),
    copies: files.map((f, i) => ({ f, i })).filter(({ f }) => f.split('.').length > 3),
  };
}

/** 16-bit segment s of hash h of a descriptor's words. */
export const seg = (w: Uint32Array, h: number, s: number): number =>
  (w[h * 8 + (s >> 1)] >>> (s & 1 ? 0 : 16)) & 0xffff;

/**
 * A real descriptor with its 16 segments rotated by 1-15 places (the same in all its hashes) and 3 %
 * of its bits flipped; its cells likewise, their places rotated by 1-15 (each keeps its quality) and
 * 2 of each cell's 64 bits flipped.
 */
export function unrelated(rnd: Random, d: Descriptor): Descriptor {
  const k = rnd.int(1, 15);
  const out = new Uint32Array(d.hashes.length);
  for (let h = 0; h < d.hashes.length / 8; h++)
    for (let s = 0; s < 16; s++) out[h * 8 + (s >> 1)] |= (seg(d.hashes, h, (s + k) % 16) << (s & 1 ? 0 : 16)) >>> 0;
  // about 3 % of the bits (8 of each 256) flipped
  for (let h = 0; h < d.hashes.length / 8; h++)
    for (let f = 0; f < 8; f++) out[h * 8 + rnd.int(0, 7)] ^= 1 << rnd.int(0, 31);
  return { hashes: out, quality: d.quality, ...(d.cells ? { cells: unrelatedCells(rnd, d.cells) } : {}) };
}

function unrelatedCells(rnd: Random, c: Cells): Cells {
  const k = rnd.int(1, CELL_COUNT - 1);
  const words = new Uint32Array(c.words.length);
  const quality = new Uint8Array(CELL_COUNT);
  for (let i = 0; i < CELL_COUNT; i++) {
    const from = (i + k) % CELL_COUNT;
    quality[i] = c.quality[from];
    for (let w = 0; w < CELL_WORDS; w++) words[i * CELL_WORDS + w] = c.words[from * CELL_WORDS + w];
    for (let f = 0; f < 2; f++) words[i * CELL_WORDS + rnd.int(0, CELL_WORDS - 1)] ^= 1 << rnd.int(0, 31);
  }
  return { words, quality };
}

/**
 * Advances `rnd` past bench/robust-lookup.ts's build of `posts` posts (for each post past the real
 * ones an unrelated descriptor, then every post's 64-bit hash), so that what it draws next are the
 * same queries as the build's run: for a run on a kept index, and for bench/robust/lookup-split.ts.
 */
export function skipCorpus(rnd: Random, real: Descriptor[], posts: number): void {
  for (let i = 0; i < Math.max(posts, real.length); i++) {
    if (i >= real.length) unrelated(rnd, real[rnd.int(0, real.length - 1)]);
    rnd.bits64();
  }
}

/** The bench's queries: copies of the set picked at random (their originals are in the corpus). */
export function pickQueries(rnd: Random, real: Descriptor[], copies: { i: number }[], queries: number): Descriptor[] {
  return Array.from({ length: queries }, () => real[copies[rnd.int(0, copies.length - 1)].i]);
}
