/**
 * Every endpoint, described once: request schemas are the very zod schemas the routes validate
 * with (imported, never copied), response schemas come from ./schemas.ts. The registry turns this
 * list into the OpenAPI document; the contract test validates recorded responses against it.
 */
import type { ZodTypeAny } from 'zod';
import { loginSchema } from '../accounts/schemas.ts';
import { IMAGE_MIMES } from '../media/store/formats.ts';
import { RATINGS } from '../kernel/post-record.ts';
import { Force, ListQuery, MAX_TAGS, MAX_TEXT, PostMetadata, TAG_NAME_PATTERN } from '../posts/schemas.ts';
import { MAX_VERSIONS_LIMIT, RevertBody, VersionsQuery } from '../posts/versions/schemas.ts';
import {
  bodyFields as ImageSearchBody,
  MAX_CONDITIONS,
  MAX_MATCH_LENGTH,
  query as ImageSearchQuery,
  RATING_ALIASES,
} from '../search/image-search/schema.ts';
import { listQuery as SearchPaging } from '../search/paging-params.ts';
import { body as PostSearchBody, selector as PostSearchSelector } from '../search/post-search/schema.ts';
import { postQuery as PostSimilarQuery, query as SimilarQuery } from '../search/similar/schema.ts';
import { MAX_PREFIX_LENGTH, MAX_TAG_LIMIT, TagListQuery } from '../tags/schemas.ts';
import { CreateWebhook, PatchWebhook, PreviewWebhook } from '../webhooks/schemas.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  limited,
  operationsGet,
  paging,
  postId,
  postNotFound,
  retryAfter,
  searchDown,
  signedIn,
  webhookId,
  webhookNotFound,
} from './operation-kit.ts';
export { documentedQuery, type Method, type Operation, type Reply } from './operation-kit.ts';
import type { Operation } from './operation-kit.ts';
import * as S from './schemas.ts';
import { PEOPLE_OPERATIONS } from './operations/people.ts';
import { CONVERSATION_OPERATIONS } from './operations/conversation.ts';
import { MODERATION_OPERATIONS } from './operations/moderation.ts';
import { PASSKEY_OPERATIONS } from './operations/passkeys.ts';
import { DIRECT_UPLOAD_OPERATIONS } from './operations/direct-upload.ts';
import { z } from './zod.ts';
import { TAG_GOVERNANCE_OPERATIONS } from './operations/tags.ts';
import { BOORU_OPERATIONS } from './operations/booru.ts';
import { ORGANIZATION_OPERATIONS } from './operations/organization.ts';

/** A tag name as sent: the rule of src/posts/schemas.ts as one pattern. */
const TagName = z.string().regex(new RegExp(TAG_NAME_PATTERN, 'u')).openapi('TagName', {
  description: 'trimmed, then 1 to 64 characters (code points) without whitespace or control characters; case is kept',
});
/** Post metadata as the routes validate it, with the tag-name rule spelled out. */
const Metadata = PostMetadata.extend({
  text: PostMetadata.shape.text.openapi({
    description: `at most ${MAX_TEXT} UTF-16 code units (maxLength counts code points, so it is the looser bound)`,
  }),
  tags: z
    .array(TagName)
    .max(MAX_TAGS)
    .optional()
    .openapi({ description: `at most ${MAX_TAGS}; duplicates are dropped` }),
});

/** `/image/search` conditions with each type's rule on its value (the route checks them in one schema). */
const caseless = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c}]`).join('');
const nonBlank = z.string().regex(/\S/u).openapi({ description: 'trimmed; must not be empty' });
const IMAGE_TYPES = IMAGE_MIMES;
const ImageSearchCondition = z.union([
  z.object({
    type: z.enum([
      'tagInclude',
      'tagExclude',
      'tagAny',
      'textContains',
      'uploadedBy',
      'favoritedBy',
      'sourceContains',
      'commentedBy',
    ]),
    value: nonBlank,
  }),
  // docs/decisions.md §20: a search in one of two spellings, parsed on the server into the one query model
  z.object({
    type: z.literal('query'),
    value: nonBlank.openapi({
      description:
        'a search: in the Danbooru spelling (cat -dog ~fox rating:g; its order: is ignored here), or in the ' +
        'gallery\'s (words, "a phrase", +tag, -tag, ~tag, rating:none|moderate|violent, by:name, ' +
        'sort:new|old|relevance|score|comments); an unknown term is 400 naming it',
    }),
    spelling: z
      .enum(['danbooru', 'gallery'])
      .optional()
      .openapi({
        description:
          "danbooru (the default) or gallery; a gallery spelling's sort: orders the results when orderBy is " +
          'absent (without sort:, relevance when it has words, else uploadDate)',
      }),
  }),
  // docs/decisions.md §18: bounds on the score (upvotes - downvotes)
  z.object({
    type: z.enum(['scoreGte', 'scoreLte']),
    value: z
      .string()
      .regex(/^\s*[+-]?\d{1,9}\s*$/u)
      .openapi({ description: 'an integer (decimal digits, optional sign, at most 9 digits)' }),
  }),
  // docs/decisions.md §19
  z.object({
    type: z.literal('pool'),
    value: z
      .string()
      .regex(/^\s*[1-9]\d{0,15}\s*$/u)
      .openapi({ description: 'a pool id' }),
  }),
  z.object({
    type: z.literal('childOf'),
    value: z
      .string()
      .regex(/^\s*(?:[1-9]\d{0,15}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\s*$/u)
      .openapi({ description: "the parent post's number or UUID" }),
  }),
  z.object({
    type: z.literal('ratingEq'),
    value: z
      .string()
      .regex(new RegExp(`^\\s*(?:${[...RATINGS, ...RATING_ALIASES.keys()].map(caseless).join('|')})\\s*$`, 'u'))
      .openapi({ description: 'a rating, any case (violet is violent)' }),
  }),
  z.object({
    type: z.literal('textMatch'),
    value: nonBlank.openapi({ description: `trimmed; 1 to ${MAX_MATCH_LENGTH} characters (UTF-16 code units)` }),
  }),
]);

/** A webhook target as the service accepts it on save (src/webhooks/ssrf.ts). */
const webhookUrl = <T extends ZodTypeAny>(schema: T) =>
  schema.openapi({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#]+(?:[/?#]|$)',
    description:
      'an absolute http or https URL without credentials, whose host is public (not loopback, private, link-local or reserved, also after DNS resolution); stored WHATWG-normalised',
  });

const binary = (description: string) => z.string().openapi({ format: 'binary', description });

export const OPERATIONS: Operation[] = [
  // ---- accounts (docs/decisions.md §2) ----
  {
    method: 'post',
    path: '/api/account/login',
    operationId: 'login',
    tag: 'accounts',
    summary: 'Log in: returns Self and sets the nmsl_cookie session cookie',
    request: { body: { required: true, ...json(loginSchema) } },
    responses: {
      ...always,
      200: signedIn('logged in'),
      400: issues(),
      401: {
        description: 'invalid username/password (a JSON string), or an invalid X-Access-Key (an error object)',
        schema: z.union([S.LoginFailure, S.ErrorBody]),
      },
      429: { ...error('too many failed logins for this name or address'), headers: retryAfter },
    },
  },
  {
    method: 'get',
    path: '/api/account',
    operationId: 'getAccount',
    tag: 'accounts',
    auth: true,
    summary: "The caller's account",
    responses: { ...always, 200: { description: 'the caller', schema: S.Self } },
  },
  {
    method: 'get',
    path: '/api/account/reset-key',
    operationId: 'resetAccessKey',
    tag: 'accounts',
    auth: 'account',
    summary: "Replace the caller's access key; the old one stops working at once",
    responses: {
      ...always,
      200: { description: 'the new key', schema: S.AccessKey },
      403: error('an app key cannot manage keys, passkeys or the account key'),
    },
  },

  // ---- posts (docs/decisions.md §4) ----
  {
    method: 'get',
    path: '/api/post/',
    operationId: 'listPosts',
    tag: 'posts',
    summary: 'List posts, newest first',
    request: { query: paging(ListQuery) },
    responses: {
      ...always,
      200: { description: 'a page of posts', schema: S.PostPage },
      400: issues('offset or limit negative or not an integer'),
    },
  },
  {
    method: 'post',
    path: '/api/post/',
    operationId: 'createPost',
    tag: 'posts',
    auth: true,
    summary: "Upload an image as a new post, or make one of a direct upload's key (needs the create-post permission)",
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              image: binary(
                'JPEG, PNG, GIF, WebP or AVIF, smaller than 4 MiB and at most 100 megapixels; required unless `key` is sent',
              ).optional(),
              key: z.string().uuid().optional().openapi({
                description:
                  "instead of `image`: the key of the caller's direct upload (POST /api/post/upload-url), read from the bucket and checked as an image part would be",
              }),
              metadata: Metadata.optional().openapi({ description: 'absent fields: text "", tags [], rating none' }),
              force: Force.openapi({ description: '1 or true: store even when near-duplicates exist' }),
            }),
            encoding: { image: { contentType: IMAGE_TYPES.join(', ') }, metadata: { contentType: 'application/json' } },
          },
        },
      },
    },
    responses: {
      ...always,
      ...limited,
      ...searchDown,
      503: {
        ...error(
          'the search index or the media store (MEDIA_STORE) is unavailable: nothing was stored; try again shortly',
        ),
        headers: retryAfter,
      },
      201: { description: 'created', schema: S.CreatedPost },
      400: issues(
        "not an accepted image, bad metadata or force; a `key` that is not the caller's, has expired, holds nothing or is being made into a post by another request; both or neither of `image` and `key`",
      ),
      403: forbidden,
      409: {
        description: 'near-duplicates exist (fewer than 4 differing bits) and force is not set',
        schema: S.DuplicateMatches,
      },
    },
  },
  {
    method: 'get',
    path: '/api/post/{id}',
    operationId: 'getPost',
    tag: 'posts',
    summary: 'One post, by UUID or number',
    request: { params: postId },
    responses: { ...always, 200: { description: 'the post', schema: S.Post }, 404: postNotFound },
  },
  ...(['put', 'patch'] as const).map(
    (method): Operation => ({
      method,
      path: '/api/post/{id}',
      operationId: method === 'put' ? 'updatePost' : 'patchPost',
      tag: 'posts',
      auth: true,
      summary: `Change a post's metadata; absent fields stay (needs the edit-post permission)${method === 'patch' ? '; same as PUT' : ''}`,
      request: { params: postId, body: { required: false, ...json(Metadata) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the post after the change', schema: S.Post },
        400: issues(),
        403: forbidden,
        404: postNotFound,
      },
    }),
  ),
  {
    method: 'delete',
    path: '/api/post/{id}',
    operationId: 'deletePost',
    tag: 'posts',
    auth: true,
    summary: 'Delete a post, its files and its index entry (needs the delete-post permission)',
    request: { params: postId },
    responses: { ...always, ...limited, 204: { description: 'deleted' }, 403: forbidden, 404: postNotFound },
  },

  // ---- post history (docs/decisions.md §9) ----
  {
    method: 'get',
    path: '/api/post/{id}/versions',
    operationId: 'listPostVersions',
    tag: 'posts',
    summary: "A post's versions, newest first",
    request: {
      params: postId,
      query: documentedQuery(VersionsQuery, {
        offset: 'versions to skip',
        limit: `page size; above ${MAX_VERSIONS_LIMIT} lowered to ${MAX_VERSIONS_LIMIT}`,
      }),
    },
    responses: {
      ...always,
      200: { description: 'a page of versions', schema: S.PostVersionPage },
      400: issues('offset or limit negative or not an integer'),
      404: postNotFound,
    },
  },
  {
    method: 'post',
    path: '/api/post/{id}/revert',
    operationId: 'revertPost',
    tag: 'posts',
    auth: true,
    summary: 'Set text, rating and tags to those of an earlier version, as an update (needs the edit-post permission)',
    request: { params: postId, body: { required: true, ...json(RevertBody) } },
    responses: {
      ...always,
      ...limited,
      200: { description: 'the post after the revert', schema: S.Post },
      400: issues(),
      403: forbidden,
      404: error('no post with this id, or it has no such version'),
    },
  },

  // ---- tags (docs/decisions.md §10) ----
  {
    method: 'get',
    path: '/api/tag',
    operationId: 'listTags',
    tag: 'tags',
    summary: 'Tags carried by at least one post, most used first; with prefix, an autocomplete',
    request: {
      query: documentedQuery(
        TagListQuery.extend({ prefix: TagListQuery.shape.prefix.openapi({ maxLength: MAX_PREFIX_LENGTH }) }),
        {
          prefix: `case-insensitive start of the name; absent: every tag; at most ${MAX_PREFIX_LENGTH} characters`,
          offset: 'tags to skip',
          limit: `page size; above ${MAX_TAG_LIMIT} lowered to ${MAX_TAG_LIMIT}`,
        },
      ),
    },
    responses: {
      ...always,
      200: { description: 'a page of tags; count is exact', schema: S.TagPage },
      400: issues('offset or limit negative or not an integer, or prefix too long'),
    },
  },
  ...TAG_GOVERNANCE_OPERATIONS,

  // ---- search (docs/decisions.md §5, §6, §7) ----
  {
    method: 'post',
    path: '/api/post/search',
    operationId: 'searchPosts',
    tag: 'search',
    summary: 'Search posts with filters (all must hold) and ordering',
    request: {
      query: paging(SearchPaging),
      // The route checks selectors one by one (for relative issue paths); the document shows them in place.
      body: {
        required: false,
        ...json(PostSearchBody.extend({ filter: z.array(PostSearchSelector).min(1).max(50).optional() })),
      },
    },
    responses: {
      ...always,
      ...searchDown,
      200: { description: 'matching posts; count is exact', schema: S.PostPage },
      400: issues(),
    },
  },
  {
    method: 'post',
    path: '/api/post/similar',
    operationId: 'similarPosts',
    tag: 'search',
    summary: 'Posts whose image is similar to the uploaded one',
    request: {
      query: documentedQuery(SimilarQuery, {
        maxDiff: 'most differing bits',
        limit: 'most matches returned',
        transforms:
          'dihedral: also find mirrored and rotated (90/180/270) copies, each match then names its `transform`; absent: the plain lookup',
        robust:
          '1: also `robust`, the posts the robust method (docs/decisions.md §16) judges the same picture (crops, borders, captions) that are not in `similar`',
      }),
      body: {
        required: true,
        content: { 'multipart/form-data': { schema: z.object({ image: binary('the image to compare') }) } },
      },
    },
    responses: {
      ...always,
      ...limited,
      ...searchDown,
      200: { description: 'the hash and the matches', schema: S.SimilarResult },
      400: issues('not an accepted image, or bad query'),
    },
  },
  {
    method: 'get',
    path: '/api/post/{id}/similar',
    operationId: 'similarToPost',
    tag: 'search',
    summary: "Posts whose image is similar to this post's (the post itself left out)",
    request: {
      params: postId,
      query: documentedQuery(PostSimilarQuery, {
        maxDiff: 'most differing bits',
        limit: 'most matches returned (in each list)',
        robust:
          "1: also `robust` (docs/decisions.md §16); empty while the post's robust descriptor is not computed yet",
      }),
    },
    responses: {
      ...always,
      ...searchDown,
      200: { description: "the post's hash and the matches", schema: S.SimilarResult },
      400: issues('bad query'),
      404: postNotFound,
    },
  },
  {
    method: 'post',
    path: '/image/search',
    operationId: 'imageSearch',
    tag: 'search',
    summary: "Full-text image search (the original client's endpoint); errors are { error }",
    request: {
      query: documentedQuery(ImageSearchQuery, {
        offset: 'results to skip (int32)',
        limit: 'page size (int32); above 24 lowered to 24',
      }),
      body: {
        required: false,
        ...json(
          ImageSearchBody.extend({
            conditions: z
              .array(ImageSearchCondition)
              .max(MAX_CONDITIONS)
              .default([])
              .openapi({ description: 'all must hold' }),
            orderBy: ImageSearchBody.shape.orderBy.openapi({
              type: 'string',
              description:
                'id, uploadDate, relevance, favorites, score or comments (the highest count first with order desc) ' +
                'or pool (the order of the pool named by the one pool condition; 400 without exactly one); ' +
                "anything else means uploadDate; absent, a gallery-spelled query's sort: decides, else uploadDate",
            }),
            order: ImageSearchBody.shape.order.openapi({
              type: 'string',
              description:
                'asc or desc; anything else means desc, but asc under orderBy pool, and the direction of a ' +
                "gallery-spelled query's sort: when orderBy is absent",
            }),
            facets: ImageSearchBody.shape.facets.openapi({
              uniqueItems: true,
              description: 'count tags, ratings and/or uploaders over the whole result (response `data.facets`)',
            }),
          }),
        ),
      },
    },
    responses: {
      ...always,
      ...searchDown,
      200: { description: 'a page of images; total is exact', schema: S.ImageSearchResult },
      400: error('invalid conditions or paging'),
    },
  },

  // ---- webhooks (docs/decisions.md §8) ----
  {
    method: 'post',
    path: '/api/webhook',
    operationId: 'createWebhook',
    tag: 'webhooks',
    auth: true,
    summary: 'Register a webhook (at most 10 per user); the template is test-rendered for each event',
    request: { body: { required: true, ...json(CreateWebhook.extend({ url: webhookUrl(CreateWebhook.shape.url) })) } },
    responses: {
      ...always,
      ...limited,
      201: { description: 'registered', schema: S.Webhook },
      400: issues('bad fields, a refused URL or a template that does not render'),
      409: error('the user already has 10 webhooks'),
    },
  },
  {
    method: 'get',
    path: '/api/webhook',
    operationId: 'listWebhooks',
    tag: 'webhooks',
    auth: true,
    summary: "The caller's webhooks",
    responses: { ...always, 200: { description: "the caller's webhooks", schema: z.array(S.Webhook) } },
  },
  {
    method: 'post',
    path: '/api/webhook/preview',
    operationId: 'previewWebhook',
    tag: 'webhooks',
    auth: true,
    summary: 'Render a template on sample data',
    request: { body: { required: true, ...json(PreviewWebhook) } },
    responses: {
      ...always,
      ...limited,
      200: { description: 'the rendered body', schema: S.WebhookPreview },
      400: issues('bad fields, or the template error and its position'),
    },
  },
  {
    method: 'get',
    path: '/api/webhook/{id}',
    operationId: 'getWebhook',
    tag: 'webhooks',
    auth: true,
    summary: "One of the caller's webhooks",
    request: { params: webhookId },
    responses: { ...always, 200: { description: 'the webhook', schema: S.Webhook }, 404: webhookNotFound },
  },
  {
    method: 'patch',
    path: '/api/webhook/{id}',
    operationId: 'updateWebhook',
    tag: 'webhooks',
    auth: true,
    summary: 'Change any of the create fields',
    request: {
      params: webhookId,
      body: { required: false, ...json(PatchWebhook.extend({ url: webhookUrl(PatchWebhook.shape.url) })) },
    },
    responses: {
      ...always,
      ...limited,
      200: { description: 'the webhook after the change', schema: S.Webhook },
      400: issues(),
      404: webhookNotFound,
    },
  },
  {
    method: 'delete',
    path: '/api/webhook/{id}',
    operationId: 'deleteWebhook',
    tag: 'webhooks',
    auth: true,
    summary: 'Delete a webhook; queued deliveries are dropped',
    request: { params: webhookId },
    responses: { ...always, ...limited, 204: { description: 'deleted' }, 404: webhookNotFound },
  },
  {
    method: 'post',
    path: '/api/webhook/{id}/reactivate',
    operationId: 'reactivateWebhook',
    tag: 'webhooks',
    auth: true,
    summary: 'Suspended to active, failure count 0',
    request: { params: webhookId },
    responses: { ...always, ...limited, 200: { description: 'the webhook', schema: S.Webhook }, 404: webhookNotFound },
  },
  {
    method: 'get',
    path: '/api/webhook/{id}/deliveries',
    operationId: 'listDeliveries',
    tag: 'webhooks',
    auth: true,
    summary: 'The latest 50 delivery attempts, newest first',
    request: { params: webhookId },
    responses: {
      ...always,
      200: { description: 'attempts', schema: z.array(S.DeliveryAttempt) },
      404: webhookNotFound,
    },
  },

  // ---- files and operations ----
  {
    method: 'get',
    path: '/media/{image}',
    operationId: 'getMedia',
    tag: 'media',
    summary:
      'An image (<id>.<ext>) or thumbnail (<id>.<size>.webp); ETag, long cache lifetime, Range; or a redirect to the bucket (MEDIA_REDIRECT=presigned)',
    request: {
      params: z.object({ image: z.string().openapi({ example: '0190c3f0-0000-7000-8000-000000000000.320.webp' }) }),
    },
    responses: {
      ...always,
      200: { description: 'the file', contentTypes: IMAGE_TYPES },
      206: { description: 'the requested range', contentTypes: IMAGE_TYPES },
      // MEDIA_REDIRECT=presigned (S3 store): the bytes come from the bucket; the redirect may be kept
      // only for the private max-age it states (below the URL's life).
      302: {
        description:
          'with MEDIA_REDIRECT=presigned: the file is at Location, a presigned URL of the bucket that expires (MEDIA_REDIRECT_EXPIRES_S); Range and validators then apply there',
        headers: {
          Location: { description: 'a short-lived presigned GET of the object', schema: { type: 'string' } },
          'Cache-Control': {
            description: "private, max-age=<seconds, below the URL's remaining life>",
            schema: { type: 'string' },
          },
        },
      },
      304: { description: 'not modified (If-None-Match)' },
      404: error('no such file'),
      416: error('range not satisfiable'),
      503: {
        ...error('the media store (MEDIA_STORE, e.g. S3) failed or did not answer in time; try again shortly'),
        headers: retryAfter,
      },
    },
  },
  operationsGet('/healthz', 'health', 'Liveness: the process answers', {
    200: { description: 'alive', schema: S.Health },
  }),
  operationsGet(
    '/readyz',
    'readiness',
    'Readiness: SQLite answers and the posts index can serve (503 otherwise); reports the cluster status',
    {
      200: { description: 'ready', schema: S.Readiness },
      503: { description: 'not ready', schema: S.Readiness },
    },
  ),
  operationsGet(
    '/metrics',
    'metrics',
    'Prometheus metrics (text exposition format); needs `Authorization: Bearer <METRICS_TOKEN>` when that is set, else answers loopback clients only',
    {
      200: { description: 'metrics', contentTypes: ['text/plain'] },
      401: error('METRICS_TOKEN is set and the bearer token is missing or wrong (or X-Access-Key is invalid)'),
      404: error('METRICS_TOKEN is unset and the client is not on a loopback address'),
    },
  ),
  operationsGet('/openapi.json', 'openapi', 'This document', {
    200: { description: 'OpenAPI 3.1', schema: S.OpenApiDocument },
  }),
  operationsGet(
    '/openapi-3.0.json',
    'openapi30',
    'This document as OpenAPI 3.0, for tools that do not take 3.1 (openapi-generator 7.17)',
    { 200: { description: 'OpenAPI 3.0.3', schema: S.OpenApiDocument } },
  ),
  operationsGet('/docs', 'docs', 'A browsable page rendering this document', {
    200: { description: 'HTML', contentTypes: ['text/html'] },
  }),
  ...PEOPLE_OPERATIONS,
  ...CONVERSATION_OPERATIONS,
  ...MODERATION_OPERATIONS,
  ...PASSKEY_OPERATIONS,
  ...DIRECT_UPLOAD_OPERATIONS,
  ...ORGANIZATION_OPERATIONS,
  ...BOORU_OPERATIONS,
];
