import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

/**
 * The stateless session cookie (docs/decisions.md §2). Its value is
 *   base64url( version(1) | iv(12) | AES-256-GCM ciphertext of JSON {uid, exp} | tag(16) )
 * GCM both hides and authenticates the payload, so a changed byte, a truncated value, a cookie
 * sealed with another key or one past its `exp` all open to null. Only uid and exp are inside:
 * permissions are read from the database on every request.
 */

export const COOKIE_NAME = 'nmsl_cookie';
/** Default session lifetime: 60 days (docs/decisions.md §2). */
export const DEFAULT_TTL_SECONDS = 60 * 24 * 3600;
export const MAX_TTL_SECONDS = 2_592_000;
/** The cookie's Max-Age is the lifetime minus this, so the browser drops it before the server would refuse it. */
export const COOKIE_MARGIN_SECONDS = 60;

const VERSION = 1;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
// Anything longer is not ours; refuse before decoding attacker-sized input.
const MAX_COOKIE_LENGTH = 512;

export interface SessionPayload {
  /** user id */
  uid: number;
  /** expiry, seconds since the epoch */
  exp: number;
}

export class SessionSealer {
  private readonly key: crypto.KeyObject;

  constructor(secret: string) {
    // HKDF gives a uniform 256-bit key whatever the secret's form, and binds it to this one use,
    // so the same SESSION_SECRET could safely key something else later. Held as a KeyObject: on
    // Node 24 a Buffer key costs every createCipheriv/createDecipheriv two thrown and caught
    // TypeErrors (its isKeyObject/isCryptoKey checks), several times the call's own cost
    // (bench/notes/node24.md), and every request with a session cookie opens one.
    this.key = crypto.createSecretKey(
      Buffer.from(crypto.hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'imgpost', 'nmsl_cookie/aes-256-gcm/v1', 32)),
    );
  }

  seal(payload: SessionPayload): string {
    const iv = crypto.randomBytes(IV_LENGTH);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_LENGTH });
    cipher.setAAD(Buffer.of(VERSION));
    const body = Buffer.concat([
      cipher.update(JSON.stringify({ uid: payload.uid, exp: payload.exp }), 'utf8'),
      cipher.final(),
    ]);
    return Buffer.concat([Buffer.of(VERSION), iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The payload, or null for anything tampered, truncated, sealed with another key, malformed or expired. */
  open(value: string | undefined, nowSeconds = Date.now() / 1000): SessionPayload | null {
    if (!value || value.length > MAX_COOKIE_LENGTH || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
    const raw = Buffer.from(value, 'base64url');
    if (raw.length < 1 + IV_LENGTH + TAG_LENGTH + 1 || raw[0] !== VERSION) return null;
    const iv = raw.subarray(1, 1 + IV_LENGTH);
    const tag = raw.subarray(raw.length - TAG_LENGTH);
    const body = raw.subarray(1 + IV_LENGTH, raw.length - TAG_LENGTH);
    let text: string;
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_LENGTH });
      decipher.setAAD(Buffer.of(VERSION));
      decipher.setAuthTag(tag);
      text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return null; // authentication failed
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    const { uid, exp } = (parsed ?? {}) as Partial<SessionPayload>;
    if (!Number.isSafeInteger(uid) || typeof exp !== 'number' || !Number.isFinite(exp)) return null;
    if (exp <= nowSeconds) return null;
    return { uid: uid as number, exp };
  }
}

export interface IssuedCookie {
  value: string;
  /** the Set-Cookie header value */
  header: string;
  maxAge: number;
  expires: Date;
}

/**
 * Seals a session of `ttl` seconds and renders its Set-Cookie header. Max-Age is ttl − 60
 * (5183940 for the 60-day default) but at least 1, so a very short ttl still yields a cookie;
 * Expires names the same moment for clients that ignore Max-Age.
 */
export function issueCookie(
  sealer: SessionSealer,
  uid: number,
  ttl = DEFAULT_TTL_SECONDS,
  nowMs = Date.now(),
): IssuedCookie {
  const now = Math.floor(nowMs / 1000);
  const value = sealer.seal({ uid, exp: now + ttl });
  const maxAge = Math.max(1, ttl - COOKIE_MARGIN_SECONDS);
  const expires = new Date((now + maxAge) * 1000);
  const header = `${COOKIE_NAME}=${value}; Path=/; Expires=${expires.toUTCString()}; Max-Age=${maxAge}; Secure; HttpOnly; SameSite=Lax`;
  return { value, header, maxAge, expires };
}

export const SECRET_FILE = 'session-secret';

/**
 * SESSION_SECRET when configured; otherwise a secret generated on first start and kept in
 * DATA_DIR/session-secret (mode 0600), so sessions survive restarts without any setup.
 * Creation uses O_EXCL: when two processes start at once, one writes and both use its secret.
 */
export function loadSessionSecret(config: Pick<Config, 'dataDir' | 'sessionSecret'>): string {
  if (config.sessionSecret) return config.sessionSecret;
  const file = path.join(config.dataDir, SECRET_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (let attempt = 0; ; attempt++) {
    const secret = fs.readFileSync(file, 'utf8').trim();
    if (secret.length >= 32) return secret;
    // Another process may have created the file and not yet written it.
    if (attempt >= 20)
      throw new Error(`${file}: session secret is shorter than 32 characters; delete the file to generate a new one`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
  }
}
