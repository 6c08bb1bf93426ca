/**
 * The OpenAPI 3.1 document, generated from the zod schemas in ./operations.ts (request schemas are
 * the routes' own). Importing this module extends zod with `.openapi()` (see ./zod.ts); app.ts
 * imports it, so that happens once at start-up.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { OPERATIONS, type Operation, type Reply } from './operations.ts';
import * as S from './schemas.ts';
import { z } from './zod.ts';

type Document = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const SECURITY: Record<string, string[]>[] = [{ accessKey: [] }, { session: [] }];

function responseConfig(reply: Reply): ResponseConfig {
  const types = reply.contentTypes ?? (reply.schema ? ['application/json'] : []);
  const content = Object.fromEntries(
    types.map((type) => [
      type,
      // Binary and text bodies have no schema; JSON bodies name their zod schema.
      { schema: reply.schema ?? (type.startsWith('image/') ? { type: 'string' as const, contentMediaType: type } : { type: 'string' as const }) },
    ]),
  );
  return {
    description: reply.description,
    ...(types.length > 0 ? { content } : {}),
    ...(reply.headers ? { headers: reply.headers } : {}),
  };
}

export function buildRegistry(operations: Operation[] = OPERATIONS): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'accessKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Access-Key',
    description: 'The account\'s access key. An invalid key is 401 on every endpoint, public ones included.',
  });
  registry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'nmsl_cookie',
    description: 'Set by POST /api/account/login. When both are sent, the access key decides.',
  });
  for (const op of operations) {
    registry.registerPath({
      method: op.method,
      path: op.path,
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      ...(op.auth ? { security: SECURITY } : {}),
      ...(op.request ? { request: op.request } : {}),
      responses: Object.fromEntries(Object.entries(op.responses).map(([status, reply]) => [status, responseConfig(reply)])),
    });
  }
  // Outgoing notifications (decisions §8), so receivers can be written from the document too.
  // Registered by name: the generator only collects components reached from paths, not from
  // webhooks, so the body's $ref would otherwise dangle.
  registry.register('DefaultWebhookBody', S.DefaultWebhookBody);
  registry.registerWebhook({
    method: 'post',
    path: 'postEvent',
    summary: 'A post was created, updated or deleted (body shown: the default template)',
    request: {
      headers: z.object({
        'X-Signature': z.string().regex(/^[0-9a-f]{64}$/).openapi({ description: 'lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the webhook secret' }),
        'X-Webhook-Event': z.enum(['create', 'update', 'delete']),
        'X-Webhook-Delivery': z.string().uuid().openapi({ description: 'the same on every retry of one delivery' }),
      }),
      body: { content: { 'application/json': { schema: S.DefaultWebhookBody } } },
    },
    responses: { 200: { description: 'any 2xx is success; 3xx, 4xx, 5xx, a time-out (30 s) or a network error is a failure' } },
  });
  return registry;
}

let cached: Document | undefined;

/** The document, generated once per process; `publicUrl` fills in `servers`. */
export function openApiDocument(publicUrl?: string): Document {
  cached ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'imgpost',
      version: '1',
      description:
        'Image posts with tags, perceptual-hash near-duplicate detection, search and signed webhooks. ' +
        'Generated from the zod schemas the service validates with.',
    },
    tags: [
      { name: 'accounts' },
      { name: 'posts' },
      { name: 'tags' },
      { name: 'search' },
      { name: 'webhooks' },
      { name: 'media' },
      { name: 'moderation' },
      { name: 'operations' },
    ],
  });
  return publicUrl ? { ...cached, servers: [{ url: publicUrl }] } : cached;
}
