/**
 * The stored form of a robust descriptor (posts.robust): byte 0 the format, byte 1 the PDQ
 * quality (0..100), then the hashes (the full hash, then one per window in WINDOWS order, then the
 * caption band's window when the picture has one, 32 bytes each, words big-endian). The format names
 * the raster size, the trim, the window set and the band: a descriptor of another format is treated
 * as not computed (migration 016 clears format 1's, so the backfill computes them again). A picture
 * that could not be read is stored as quality 0 and no hashes: computed, and never matching.
 *
 * Format 1: the full hash and the 20 windows of w20. Format 2: the same, bit for bit, plus the
 * caption band's window (band.ts) when one is found.
 */
import { WINDOWS } from './descriptor.ts';
import type { Descriptor } from './rule.ts';

export const FORMAT = 2;
/** hashes of a descriptor without a caption band; one with a band has one more */
const HASHES = 1 + WINDOWS.length;

export function encodeDescriptor(d: Descriptor): Buffer {
  const out = Buffer.alloc(2 + d.hashes.length * 4);
  out[0] = FORMAT;
  out[1] = Math.max(0, Math.min(255, Math.round(d.quality)));
  d.hashes.forEach((w, i) => out.writeUInt32BE(w >>> 0, 2 + i * 4));
  return out;
}

/** An unreadable picture: computed, never matching. */
export const UNREADABLE: Descriptor = { quality: 0, hashes: new Uint32Array(0) };

/** null: not computed under this format. */
export function decodeDescriptor(buf: Buffer | Uint8Array | null | undefined): Descriptor | null {
  if (!buf || buf.length < 2 || buf[0] !== FORMAT) return null;
  const words = (buf.length - 2) / 4;
  if (words !== 0 && words !== HASHES * 8 && words !== (HASHES + 1) * 8) return null;
  // Copy the big-endian words into an aligned array and swap them natively (a lookup decodes
  // thousands of candidates; readUInt32BE word by word was a visible part of its time).
  const hashes = new Uint32Array(words);
  const bytes = Buffer.from(hashes.buffer, 0, words * 4);
  bytes.set(buf.subarray(2, 2 + words * 4));
  if (words > 0) bytes.swap32();
  return { quality: buf[1], hashes };
}
