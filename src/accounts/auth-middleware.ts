import type Koa from 'koa';
import { AppError } from '../errors.ts';
import type { AppState } from '../http/context.ts';
import type { AccountService } from './service.ts';
import { COOKIE_NAME } from './session-cookie.ts';

/**
 * Finds the caller (docs/decisions.md §2) and puts them in ctx.state.user; routes then use
 * requireAuth / requirePermission. The user, and so the permission, is read from the database
 * on every request, so a permission change or a removed account takes effect at once.
 *
 * - `X-Access-Key` present: it decides. Valid → that user; invalid → 401 on every endpoint,
 *   public ones included (a client with a wrong key should learn so, not silently be anonymous).
 *   A cookie sent alongside is not looked at.
 * - Otherwise `nmsl_cookie`: valid → that user; invalid or expired → anonymous, so public
 *   endpoints still answer and protected ones give 401.
 */
export function authenticate(deps: { accounts: AccountService }): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.request.headers['x-access-key'];
    if (key !== undefined) {
      // Repeated headers arrive joined with ", ", which no valid key contains.
      const user = deps.accounts.authenticateKey(Array.isArray(key) ? key.join(', ') : key);
      if (!user) throw new AppError('unauthenticated', 'invalid access key');
      ctx.state.user = user;
    } else {
      const cookie = ctx.cookies.get(COOKIE_NAME, { signed: false });
      if (cookie) ctx.state.user = deps.accounts.authenticateCookie(cookie);
    }
    await next();
  };
}
