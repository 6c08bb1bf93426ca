import type Koa from 'koa';
import { AppError } from '../errors.ts';
import type { AppState } from './context.ts';

/**
 * Fixed paths that sit where a parameter route also matches (`/api/post/search` beside
 * `/api/post/:id`, `/api/webhook/preview` beside `/api/webhook/:id`). Without this, a GET or DELETE
 * there would be routed as if "search" were a post id; instead it is 405 naming the real methods.
 * A plain middleware, not a router route, so the route table lists only what is served.
 */
export function methodGuard(allowed: Record<string, string[]>): Koa.Middleware<AppState> {
  // koa-router matches case-insensitively and ignores one trailing slash: so does this.
  const table = new Map(Object.entries(allowed).map(([p, methods]) => [p.toLowerCase(), methods]));
  return async (ctx, next) => {
    const methods = table.get(ctx.path.toLowerCase().replace(/(.)\/$/, '$1'));
    if (!methods || methods.includes(ctx.method)) return next();
    ctx.set('Allow', methods.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw new AppError('method_not_allowed', `method ${ctx.method} is not allowed here`);
  };
}
