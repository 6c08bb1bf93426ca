import crypto from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Password hashing with scrypt (docs/decisions.md §2: a slow salted hash). The stored string carries
 * its own parameters, so they can be raised later without invalidating existing hashes:
 *   scrypt$<log2 N>$<r>$<p>$<salt base64url>$<hash base64url>
 */

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

export interface ScryptParams {
  log2N: number;
  r: number;
  p: number;
}

/** N = 2^15, r = 8: 32 MiB and roughly 50–100 ms per hash on a current core. */
export const DEFAULT_PARAMS: ScryptParams = { log2N: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
// Hashes with parameters past these are refused rather than run: a tampered row must not
// be able to make one login allocate gigabytes.
const MAX_LOG2N = 20;
const MAX_R = 32;
const MAX_P = 16;

const options = ({ log2N, r, p }: ScryptParams): crypto.ScryptOptions => ({
  N: 2 ** log2N,
  r,
  p,
  // Node's default maxmem (32 MiB) is exactly 128·N·r for N=2^15, r=8 and refuses it; give headroom.
  maxmem: 256 * 2 ** log2N * r + 1024 * 1024,
});

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_PARAMS): Promise<string> {
  const salt = crypto.randomBytes(SALT_LENGTH);
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options(params));
  return ['scrypt', params.log2N, params.r, params.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

interface Parsed extends ScryptParams {
  salt: Buffer;
  hash: Buffer;
}

function parse(encoded: string): Parsed | undefined {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  if (
    ![log2N, r, p].every(Number.isInteger) ||
    log2N < 1 ||
    log2N > MAX_LOG2N ||
    r < 1 ||
    r > MAX_R ||
    p < 1 ||
    p > MAX_P
  )
    return undefined;
  const salt = Buffer.from(parts[4], 'base64url');
  const hash = Buffer.from(parts[5], 'base64url');
  if (salt.length === 0 || hash.length === 0) return undefined;
  return { log2N, r, p, salt, hash };
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (!parsed) return false;
  const derived = await scrypt(password.normalize('NFC'), parsed.salt, parsed.hash.length, options(parsed));
  return crypto.timingSafeEqual(derived, parsed.hash);
}

const dummies = new Map<string, Promise<string>>();

/**
 * A hash of a random password with the parameters new hashes get. Logins for unknown users verify
 * against it, so they take as long as logins for existing ones (no user enumeration by timing).
 */
export function dummyHash(params: ScryptParams = DEFAULT_PARAMS): Promise<string> {
  const key = `${params.log2N}$${params.r}$${params.p}`;
  let dummy = dummies.get(key);
  if (!dummy) dummies.set(key, (dummy = hashPassword(crypto.randomBytes(16).toString('base64url'), params)));
  return dummy;
}

/** The parameters for new hashes at a cost (PASSWORD_HASH_COST, log2 N); r and p as the default's. */
export const paramsAtCost = (log2N: number): ScryptParams => ({ ...DEFAULT_PARAMS, log2N });
