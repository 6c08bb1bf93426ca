/**
 * The stored form of a robust descriptor (posts.robust): byte 0 the format, byte 1 the PDQ
 * quality (0..100), then the hashes (the full hash, then one per window in WINDOWS order, then the
 * caption band's window when the picture has one, 32 bytes each, words big-endian), then the cells
 * (cells.ts): CELL_COUNT quality bytes and CELL_COUNT hashes of 8 bytes. The format names
 * the raster size, the trim, the window set and the band: a descriptor of another format is treated
 * as not computed (migration 016 clears format 1's, so the backfill computes them again). A picture
 * that could not be read is stored as quality 0 and no hashes: computed, and never matching.
 *
 * Format 1: the full hash and the 20 windows of w20. Format 2: the same, bit for bit, plus the
 * caption band's window (band.ts) when one is found. Format 3: format 2's bytes, then the cells
 * (migration 017 clears format 2's descriptors, so the backfill computes them again).
 */
import { CELL_COUNT, CELL_WORDS } from './cells.ts';
import { WINDOWS } from './descriptor.ts';
import type { Descriptor } from './rule.ts';

export const FORMAT = 3;
/** hashes of a descriptor without a caption band; one with a band has one more */
const HASHES = 1 + WINDOWS.length;
/** bytes of the cells: a quality byte each, then their words */
const CELL_BYTES = CELL_COUNT * (1 + CELL_WORDS * 4);

/** Cells that never count (quality 0): what a descriptor made without them stores. */
const NO_CELLS = { quality: new Uint8Array(CELL_COUNT), words: new Uint32Array(CELL_COUNT * CELL_WORDS) };

export function encodeDescriptor(d: Descriptor): Buffer {
  const cells = d.hashes.length > 0 ? (d.cells ?? NO_CELLS) : undefined;
  const out = Buffer.alloc(2 + d.hashes.length * 4 + (cells ? CELL_BYTES : 0));
  out[0] = FORMAT;
  out[1] = Math.max(0, Math.min(255, Math.round(d.quality)));
  d.hashes.forEach((w, i) => out.writeUInt32BE(w >>> 0, 2 + i * 4));
  if (cells) {
    const at = 2 + d.hashes.length * 4;
    out.set(cells.quality, at);
    cells.words.forEach((w, i) => out.writeUInt32BE(w >>> 0, at + CELL_COUNT + i * 4));
  }
  return out;
}

/** An unreadable picture: computed, never matching. */
export const UNREADABLE: Descriptor = { quality: 0, hashes: new Uint32Array(0) };

/** null: not computed under this format. */
export function decodeDescriptor(buf: Buffer | Uint8Array | null | undefined): Descriptor | null {
  if (!buf || buf.length < 2 || buf[0] !== FORMAT) return null;
  if (buf.length === 2) return { quality: buf[1], hashes: new Uint32Array(0) };
  const words = (buf.length - 2 - CELL_BYTES) / 4;
  if (words !== HASHES * 8 && words !== (HASHES + 1) * 8) return null;
  const at = 2 + words * 4;
  return {
    quality: buf[1],
    hashes: wordsOf(buf, 2, words),
    cells: {
      quality: Uint8Array.from(buf.subarray(at, at + CELL_COUNT)),
      words: wordsOf(buf, at + CELL_COUNT, CELL_COUNT * CELL_WORDS),
    },
  };
}

/**
 * `count` big-endian words from buf[from..]: copied into an aligned array and swapped natively (a
 * lookup decodes thousands of candidates; readUInt32BE word by word was a visible part of its time).
 */
function wordsOf(buf: Uint8Array, from: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  const bytes = Buffer.from(out.buffer, 0, count * 4);
  bytes.set(buf.subarray(from, from + count * 4));
  bytes.swap32();
  return out;
}
