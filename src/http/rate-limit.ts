import type Koa from 'koa';
import { AppError } from '../errors.ts';
import type { AppState } from './context.ts';

/**
 * Abuse limits for writes and uploads: in-memory token buckets, one per (class, caller) where the
 * caller is both the authenticated user and the client address. A bucket holds `perMinute` tokens
 * and refills continuously, so a client may burst up to the limit and then sustain `perMinute`.
 *
 * Per user *and* per address: a user cannot escape by changing address, and many throw-away
 * credentials from one address share that address's budget. Logins have their own throttle
 * (accounts/throttle.ts) and are not counted here.
 *
 * Headers follow the IETF draft (draft-ietf-httpapi-ratelimit-headers, separate-field form):
 * RateLimit-Limit / -Remaining / -Reset on every counted response, and Retry-After on 429.
 * In memory only: limits are per process, which is what one server with one SQLite file needs.
 */

export interface RateLimitOptions {
  /** POST/PUT/PATCH/DELETE other than searches; 0 disables */
  writesPerMinute: number;
  /** POST /api/post/ and POST /api/post/similar; 0 disables */
  uploadsPerMinute: number;
  /** buckets kept per class before idle (full) ones are dropped */
  maxKeys?: number;
  now?: () => number;
}

type LimitClass = 'writes' | 'uploads';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// POSTs that only read: counting them as writes would throttle ordinary browsing.
const READ_ONLY_POSTS = new Set(['/api/post/search', '/image/search', '/api/account/login']);
const UPLOAD_PATHS = new Set(['/api/post', '/api/post/', '/api/post/similar']);

/** The classes a request counts against. Exported for tests. */
export function classify(method: string, path: string): LimitClass[] {
  if (!WRITE_METHODS.has(method)) return [];
  const classes: LimitClass[] = [];
  if (method === 'POST' && UPLOAD_PATHS.has(path)) classes.push('uploads');
  // /similar is public and read-only but costs a hash: it is an upload, not a write.
  if (!READ_ONLY_POSTS.has(path) && path !== '/api/post/similar') classes.push('writes');
  return classes;
}

interface Bucket {
  tokens: number;
  at: number;
}

class BucketTable {
  private readonly buckets = new Map<string, Bucket>();
  private readonly ratePerMs: number;

  constructor(
    readonly limit: number,
    private readonly maxKeys: number,
  ) {
    this.ratePerMs = limit / 60_000;
  }

  private refill(key: string, now: number): Bucket {
    const b = this.buckets.get(key);
    if (!b) return { tokens: this.limit, at: now };
    return { tokens: Math.min(this.limit, b.tokens + (now - b.at) * this.ratePerMs), at: now };
  }

  /** The bucket's state now, without taking a token. */
  peek(key: string, now: number): Bucket {
    return this.refill(key, now);
  }

  take(key: string, now: number): void {
    const b = this.refill(key, now);
    b.tokens -= 1;
    // Re-insert so Map order is least-recently-used first.
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size > this.maxKeys) this.evict(now);
  }

  /** Milliseconds until `bucket` holds `tokens` tokens. */
  msUntil(bucket: Bucket, tokens: number): number {
    return Math.max(0, (tokens - bucket.tokens) / this.ratePerMs);
  }

  private evict(now: number): void {
    // Full buckets carry no information; drop them first, then the least recently used.
    for (const key of this.buckets.keys()) if (this.refill(key, now).tokens >= this.limit) this.buckets.delete(key);
    // Down to 90%, so a flood of new keys pays for a sweep once per 10% of the table, not per request.
    const target = Math.floor(this.maxKeys * 0.9);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

export interface RateLimiter extends Koa.Middleware<AppState> {
  /** number of live buckets, for tests */
  readonly size: number;
}

export function rateLimit(opts: RateLimitOptions): RateLimiter {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 50_000;
  const tables: Partial<Record<LimitClass, BucketTable>> = {};
  if (opts.writesPerMinute > 0) tables.writes = new BucketTable(opts.writesPerMinute, maxKeys);
  if (opts.uploadsPerMinute > 0) tables.uploads = new BucketTable(opts.uploadsPerMinute, maxKeys);

  const middleware = (async (ctx, next) => {
    const classes = classify(ctx.method, ctx.path).filter((c) => tables[c]);
    if (classes.length === 0) return next();
    const t = now();
    const keys = [`addr:${ctx.ip}`, ...(ctx.state.user ? [`user:${ctx.state.user.id}`] : [])];
    // Every bucket this request would draw from, and the tightest of them for the headers.
    const checks = classes.flatMap((c) =>
      keys.map((key) => ({ table: tables[c]!, key, bucket: tables[c]!.peek(key, t) })),
    );
    const tightest = checks.reduce((a, b) =>
      b.bucket.tokens / b.table.limit < a.bucket.tokens / a.table.limit ? b : a,
    );
    const empty = checks.filter((c) => c.bucket.tokens < 1);
    if (empty.length > 0) {
      // Refused requests take nothing, so a client that waits Retry-After does get through.
      const waitMs = Math.max(...empty.map((c) => c.table.msUntil(c.bucket, 1)));
      setHeaders(ctx, tightest.table.limit, 0, waitMs);
      throw new AppError(
        'rate_limited',
        'too many requests; slow down and retry later',
        undefined,
        Math.max(1, Math.ceil(waitMs / 1000)),
      );
    }
    for (const c of checks) c.table.take(c.key, t);
    const remaining = Math.floor(tightest.bucket.tokens - 1);
    setHeaders(
      ctx,
      tightest.table.limit,
      remaining,
      tightest.table.msUntil({ tokens: tightest.bucket.tokens - 1, at: t }, tightest.table.limit),
    );
    await next();
  }) as RateLimiter;
  Object.defineProperty(middleware, 'size', {
    get: () => Object.values(tables).reduce((n, table) => n + table.size, 0),
  });
  return middleware;
}

function setHeaders(ctx: Koa.Context, limit: number, remaining: number, resetMs: number): void {
  ctx.set('RateLimit-Limit', String(limit));
  ctx.set('RateLimit-Remaining', String(Math.max(0, remaining)));
  ctx.set('RateLimit-Reset', String(Math.ceil(resetMs / 1000)));
}
