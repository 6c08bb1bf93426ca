import crypto from 'node:crypto';
import Router from '@koa/router';
import type { AppState } from '../http/context.ts';
import { docsPage } from './docs-page.ts';
import { openApi30Document, openApiDocument } from './registry.ts';

/** GET /openapi.json, GET /openapi-3.0.json and GET /docs. Public: the document describes, it does not reveal. */
export function openApiRoutes(deps: { config: { publicUrl: string } }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/openapi.json', (ctx) => {
    // publicUrl is read per request: tests (and proxies) set it after start-up.
    ctx.body = openApiDocument(deps.config.publicUrl);
  });
  router.get('/openapi-3.0.json', (ctx) => {
    ctx.body = openApi30Document(deps.config.publicUrl);
  });
  router.get('/docs', (ctx) => {
    const nonce = crypto.randomBytes(16).toString('base64');
    ctx.set(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsPage(nonce);
  });
  return router;
}
