/**
 * The OpenAPI 3.1 document, generated from the zod schemas in ./operations.ts (request schemas are
 * the routes' own). Importing this module extends zod with `.openapi()` (see ./zod.ts); app.ts
 * imports it, so that happens once at start-up.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { OPERATIONS, type Operation, type Reply } from './operations.ts';
import { toOpenApi30 } from './openapi-3.0.ts';
import * as S from './schemas.ts';
import { z } from '../util/zod.ts';

type Document = ReturnType<OpenApiGeneratorV31['generateDocument']>;

type Requirement = Record<string, string[]>;
const ACCOUNT: Requirement[] = [{ accessKey: [] }, { session: [] }];
const ANY_CREDENTIAL: Requirement[] = [{ accessKey: [] }, { appKey: [] }, { session: [] }];
/**
 * Every operation declares its security, so tools (redocly's security-defined, generated clients)
 * need not guess: public operations list the empty requirement first (no credential needed) and
 * the credentials they still accept, since a sent key is checked on every endpoint.
 */
function securityOf(auth: Operation['auth']): Requirement[] {
  if (auth === 'account') return ACCOUNT;
  return auth ? ANY_CREDENTIAL : [{}, ...ANY_CREDENTIAL];
}

/** One line per tag; keyed by the Operation type's tags, so a new tag cannot go undescribed. */
const TAGS: Record<Operation['tag'], string> = {
  accounts: "Log-in, the caller's account and its keys",
  posts: 'Image posts: upload, read, edit, versions, delete',
  tags: 'Tags and their post counts',
  search: "Post search, the original client's image search, and near-duplicates by perceptual hash",
  webhooks: 'Signed, templated notifications of post changes, and their deliveries',
  media: 'Stored images and their thumbnails',
  moderation: 'Deletion requests and merging duplicates (docs/decisions.md §15)',
  pools: 'Pools: ordered collections of posts, with their history (docs/decisions.md §19)',
  operations: 'Health, readiness, metrics and this document',
  booru: "A compatibility layer: Danbooru's read API and tag syntax for its clients (docs/decisions.md §20)",
};

function responseConfig(reply: Reply): ResponseConfig {
  const types = reply.contentTypes ?? (reply.schema ? ['application/json'] : []);
  const content = Object.fromEntries(
    types.map((type) => [
      type,
      // Binary and text bodies have no schema; JSON bodies name their zod schema.
      {
        schema:
          reply.schema ??
          (type.startsWith('image/')
            ? { type: 'string' as const, contentMediaType: type }
            : { type: 'string' as const }),
      },
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
    description: "The account's access key. An invalid key is 401 on every endpoint, public ones included.",
  });
  // The same header as the access key: the service tells them apart by the key itself. A scheme
  // of its own so each operation says whether an app key may call it.
  registry.registerComponent('securitySchemes', 'appKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Access-Key',
    description:
      "An app key the account created (docs/decisions.md §14), sent in X-Access-Key: it acts with the permission it was given AND the owner's current " +
      'permission; revoked, it is 401. Operations that manage keys, passkeys or the account key do not list it (an app key there is 403).',
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
      security: securityOf(op.auth),
      ...(op.request ? { request: op.request } : {}),
      responses: Object.fromEntries(
        Object.entries(op.responses).map(([status, reply]) => [status, responseConfig(reply)]),
      ),
    });
  }
  // Outgoing notifications (docs/decisions.md §8), so receivers can be written from the document too.
  // Registered by name: the generator only collects components reached from paths, not from
  // webhooks, so the body's $ref would otherwise dangle.
  registry.register('DefaultWebhookBody', S.DefaultWebhookBody);
  registry.registerWebhook({
    method: 'post',
    path: 'postEvent',
    operationId: 'postEvent',
    // The receiver checks X-Signature (an HMAC of the body, not a static key OpenAPI could name).
    security: [],
    summary: 'A post was created, updated or deleted (body shown: the default template)',
    request: {
      headers: z.object({
        'X-Signature': z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .openapi({ description: 'lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the webhook secret' }),
        'X-Webhook-Event': z.enum(['create', 'update', 'delete']),
        'X-Webhook-Delivery': z.string().uuid().openapi({ description: 'the same on every retry of one delivery' }),
      }),
      body: { content: { 'application/json': { schema: S.DefaultWebhookBody } } },
    },
    responses: {
      200: { description: 'any 2xx is success; 3xx, 4xx, 5xx, a time-out (30 s) or a network error is a failure' },
    },
  });
  return registry;
}

let cached: Document | undefined;

/** The document, generated once per process; `publicUrl` fills in `servers`. */
export function openApiDocument(publicUrl?: string): Document {
  cached ??= withoutRepeatedAlternatives(
    new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'imgpost',
        version: '1',
        description:
          'Image posts with tags, perceptual-hash near-duplicate detection, search and signed webhooks. ' +
          'Generated from the zod schemas the service validates with. The same document as OpenAPI 3.0 (without `webhooks`, which 3.0 lacks): /openapi-3.0.json.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    }),
  );
  return publicUrl ? { ...cached, servers: [{ url: publicUrl }] } : cached;
}

let cached30: ReturnType<typeof toOpenApi30> | undefined;

/** The same document as OpenAPI 3.0 (./openapi-3.0.ts says which tools need it). */
export function openApi30Document(publicUrl?: string) {
  cached30 ??= toOpenApi30(openApiDocument());
  const { servers: _none, ...doc } = cached30;
  return publicUrl ? { ...doc, servers: [{ url: publicUrl }] } : doc;
}

/**
 * zod-to-openapi 7.3 writes `z.union([X, z.null()])` with a described member as
 * `anyOf: [X, {type: null}, {type: null}]`; linters flag the repeat (no-illogical-composition-keywords).
 */
function withoutRepeatedAlternatives<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutRepeatedAlternatives) as T;
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withoutRepeatedAlternatives(value)]));
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(out[key]))
      out[key] = [...new Map((out[key] as unknown[]).map((alt) => [JSON.stringify(alt), alt])).values()];
  }
  return out as T;
}
