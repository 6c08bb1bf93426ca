import crypto from 'node:crypto';

/** Access keys (docs/decisions.md §2): 43 characters from [A-Za-z0-9_], about 257 bits of entropy. */
export const ACCESS_KEY_LENGTH = 43;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_'; // 63 characters
export const ACCESS_KEY_PATTERN = /^[A-Za-z0-9_]{43}$/;

/**
 * Rejection sampling keeps every character equally likely: each random byte is cut to 6 bits
 * (0–63) and the one value past the alphabet (63) is thrown away instead of being folded back
 * with a modulo, which would favour some characters.
 */
export function generateAccessKey(): string {
  let key = '';
  while (key.length < ACCESS_KEY_LENGTH) {
    for (const byte of crypto.randomBytes(64)) {
      const index = byte & 63;
      if (index < ALPHABET.length) key += ALPHABET[index];
      if (key.length === ACCESS_KEY_LENGTH) break;
    }
  }
  return key;
}

/** The indexed lookup column: the SHA-256 of the key (a key is high-entropy, so no salt is needed). */
export const accessKeyDigest = (key: string): Buffer => crypto.createHash('sha256').update(key, 'utf8').digest();
