/**
 * GET /openapi.json, GET /openapi-3.0.json and GET /docs. Public: the document describes, it does not reveal.
 * The document is built from every endpoint, these three included, so the app hands the builders in
 * (src/app.ts) rather than this file importing the registry that imports it.
 */
import crypto from 'node:crypto';
import { always, type Feature } from '../http/endpoint.ts';
import { docsPage } from './docs-page.ts';
import { OpenApiDocument } from './schemas.ts';

interface OpenApiRouteDeps {
  config: { publicUrl: string };
  openApi: { v31(publicUrl: string): object; v30(publicUrl: string): object };
}

export const openApiFeature: Feature<OpenApiRouteDeps> = {
  name: 'openapi',
  endpoints: [
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'openapi',
      tag: 'operations',
      summary: 'This document',
      responses: { ...always, 200: { description: 'OpenAPI 3.1', schema: OpenApiDocument } },
      // publicUrl is read per request: tests (and proxies) set it after start-up.
      handle: (deps) => [
        (ctx) => {
          ctx.body = deps.openApi.v31(deps.config.publicUrl);
        },
      ],
    },
    {
      method: 'get',
      path: '/openapi-3.0.json',
      operationId: 'openapi30',
      tag: 'operations',
      summary: 'This document as OpenAPI 3.0, for tools that do not take 3.1 (openapi-generator 7.17)',
      responses: { ...always, 200: { description: 'OpenAPI 3.0.3', schema: OpenApiDocument } },
      handle: (deps) => [
        (ctx) => {
          ctx.body = deps.openApi.v30(deps.config.publicUrl);
        },
      ],
    },
    {
      method: 'get',
      path: '/docs',
      operationId: 'docs',
      tag: 'operations',
      summary: 'A browsable page rendering this document',
      responses: { ...always, 200: { description: 'HTML', contentTypes: ['text/html'] } },
      handle: () => [
        (ctx) => {
          const nonce = crypto.randomBytes(16).toString('base64');
          ctx.set(
            'Content-Security-Policy',
            `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
          );
          ctx.set('X-Content-Type-Options', 'nosniff');
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = docsPage(nonce);
        },
      ],
    },
  ],
};
