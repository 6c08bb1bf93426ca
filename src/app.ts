import crypto from 'node:crypto';
import Koa from 'koa';
import type Router from '@koa/router';
import { errorHandler } from './http/errors.ts';
import { bodyCap, bodyCapFor } from './http/body.ts';
import { methodGuard } from './http/method-guard.ts';
import { rateLimit } from './http/rate-limit.ts';
import type { AppState } from './http/context.ts';
import { authenticate } from './accounts/auth-middleware.ts';
import { createMetrics } from './observability/metrics.ts';
import type { AppDeps, AppServices } from './app-services.ts';
import { featureRouter, type AuthGate } from './http/endpoint.ts';
import { requireAccount, requireAuth } from './accounts/permissions.ts';
import { SERVED } from './openapi/operations.ts';
import { openApi30Document, openApiDocument } from './openapi/registry.ts';
import { requestLog } from './observability/request-log.ts';
import { galleryRoutes } from './gallery/routes.ts';

export type { AppServices } from './app-services.ts';

const REQUEST_ID = /^[\w.-]{1,64}$/;

/** A credential requirement in the router: any valid credential, or ('account') the account's own. */
const gate: AuthGate = (auth) => (auth === 'account' ? [requireAccount] : auth ? [requireAuth] : []);

/** Builds the Koa app from already-wired services; listening is the caller's business. */
export function createApp(services: AppServices): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = services.config.trustProxy > 0;
  if (app.proxy) app.maxIpsCount = services.config.trustProxy;
  app.silent = true;

  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  // Outside the error handler, so both see the status the client gets.
  const metrics = createMetrics(services);
  app.use(requestLog(services.log, [metrics.observeRequest]));
  app.use(errorHandler(services.log));
  // The largest upload there is: a video (docs/decisions.md §21); each route caps its own body below it.
  app.use(bodyCap(bodyCapFor(Math.max(services.config.maxImageBytes, services.config.video.maxVideoBytes))));
  // Before every router: an invalid X-Access-Key is 401 even on public endpoints (docs/decisions.md §2).
  app.use(authenticate(services));
  // After authentication, so writes count per user as well as per address.
  app.use(rateLimit(services.config.rateLimit));

  // Every endpoint (src/openapi/operations.ts), then the gallery's pages. Each router's middleware matches
  // the path against all of its routes before passing it on, so the busiest features come first: a page
  // view is one search and 24 thumbnails (issue 28). No two routers share a path, so the order changes
  // nothing else.
  const deps: AppDeps = { ...services, metrics, openApi: { v31: openApiDocument, v30: openApi30Document } };
  const mounted = (busy: boolean) =>
    SERVED.filter((f) => (f.busy === true) === busy).map((f) => featureRouter(f, deps, gate));
  const routers: Router<AppState>[] = [...mounted(true), ...mounted(false), galleryRoutes(services)];
  // koa-router answers 501 to a method it does not implement (PROPFIND, SEARCH...) on a known path and
  // leaves 405 bodies empty: both are the client's mistake, so 405 with the Allow header and a JSON body.
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 501 || (ctx.status === 405 && ctx.body == null)) {
      ctx.status = 405;
      ctx.body = { error: `method ${ctx.method} is not allowed here` };
    }
  });
  app.use(
    methodGuard({
      '/api/post/upload-url': ['POST'],
      '/api/post/search': ['POST'],
      '/api/post/similar': ['POST'],
      '/api/webhook/preview': ['POST'],
    }),
  );
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
