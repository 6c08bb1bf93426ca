import crypto from 'node:crypto';
import net from 'node:net';
import type Koa from 'koa';
import { AppError } from '../errors.ts';
import type { AppState } from '../http/context.ts';

/** 127.0.0.0/8, ::1 and IPv4 loopback mapped into IPv6. */
export function isLoopback(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (net.isIPv4(v4)) return v4.startsWith('127.');
  return address === '::1';
}

/** Compared as SHA-256 digests: constant time whatever the lengths. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/**
 * Who may scrape /metrics (docs/decisions.md §13). With METRICS_TOKEN: only `Authorization: Bearer
 * <token>` (401 otherwise). Without: loopback clients only; anyone else gets 404, as if the route
 * did not exist. The client is ctx.ip, so behind a trusted proxy a forwarded client is not loopback.
 */
export function metricsAccess(config: { metricsToken?: string }): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const token = config.metricsToken;
    if (token !== undefined) {
      const m = /^Bearer +(\S+)\s*$/i.exec(ctx.get('authorization'));
      if (!m || !sameSecret(m[1], token)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new AppError('unauthenticated', 'a valid bearer token is required for /metrics');
      }
    } else if (!isLoopback(ctx.ip)) {
      throw new AppError('not_found', 'not found');
    }
    await next();
  };
}
