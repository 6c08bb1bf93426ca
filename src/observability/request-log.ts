import type Koa from 'koa';
import type { AppState } from '../http/context.ts';
import type { Logger } from '../log.ts';

/**
 * The route template the router matched (`/api/post/:id`), or null when no route matched. Logs and
 * metrics use the template rather than the path, so ids do not explode label cardinality.
 *
 * @koa/router sets `_matchedRoute` to each layer as it runs it; when a router-level middleware
 * (such as requireAuth on /api/webhook) ends the chain early, the last layer run is that
 * middleware, whose path is a catch-all pattern. `matched` lists every layer whose path matched,
 * so the route is the last one there that has methods (a real endpoint) for this method.
 */
export function routeOf(ctx: Koa.ParameterizedContext<AppState>): string | null {
  const c = ctx as unknown as {
    matched?: { path: string | RegExp; methods: string[] }[];
    _matchedRoute?: string | RegExp;
  };
  const layers = c.matched ?? [];
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    if (typeof layer.path === 'string' && layer.methods.includes(ctx.method)) return layer.path;
  }
  return typeof c._matchedRoute === 'string' && layers.length === 0 ? c._matchedRoute : null;
}

export interface RequestRecord {
  requestId: string;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  userId: number | null;
}

/** Probes and scrapes arrive every few seconds; at info they would drown everything else. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One JSON line per request: id, method, route, status, duration, user, client address. Never headers, query
 * strings or bodies: those carry access keys, cookies, passwords and webhook secrets.
 *
 * Mounted outside the error handler so the status is the one the client gets. The duration ends
 * when the handler is done, before a streamed body (media files) has been sent.
 */
export function requestLog(log: Logger, observers: ((r: RequestRecord) => void)[] = []): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    // Read now: once a refused request's socket is destroyed (413 with Connection: close), Koa can no
    // longer derive the address, and reading it afterwards threw past the error handler (a bare 500).
    // ctx.ip: the client's address, from X-Forwarded-For only as far as TRUST_PROXY allows.
    const ip = ctx.ip;
    try {
      await next();
    } finally {
      const record: RequestRecord = {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route: routeOf(ctx),
        status: ctx.status,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        userId: ctx.state.user?.id ?? null,
      };
      for (const observe of observers) observe(record);
      // The path only when no route matched (what was asked for), clipped: it is caller-controlled.
      const fields = { ...record, ip, path: record.route === null ? ctx.path.slice(0, 200) : undefined };
      if (record.status >= 500) log.warn('request', fields);
      else if (record.route !== null && QUIET_ROUTES.has(record.route)) log.debug('request', fields);
      else log.info('request', fields);
    }
  };
}
