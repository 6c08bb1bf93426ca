import type Koa from 'koa';
import type { ZodTypeAny } from 'zod';
import { currentUser } from '../accounts/permissions.ts';
import { jsonBody, optionalBody, requestBody } from '../http/body.ts';
import type { AppState } from '../http/context.ts';
import { always, error, issues, json, limited, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { CreateWebhook, DeliveryAttempt, PatchWebhook, PreviewWebhook, Webhook, WebhookPreview } from './schemas.ts';
import type { WebhookService } from './service.ts';

/** A webhook target as the service accepts it on save (src/webhooks/ssrf.ts). */
const webhookUrl = <T extends ZodTypeAny>(schema: T) =>
  schema.openapi({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#]+(?:[/?#]|$)',
    description:
      'an absolute http or https URL without credentials, whose host is public (not loopback, private, link-local or reserved, also after DNS resolution); stored WHATWG-normalised',
  });
const webhookId = z.object({ id: z.string().uuid() });
const webhookNotFound = error("no webhook with this id among the caller's own");

/** Records and previews are per-user and may echo templates: keep them out of shared caches. */
const noStore: Koa.Middleware<AppState> = async (ctx, next) => {
  await next();
  ctx.set('Cache-Control', 'no-store');
};

/** Webhook management, docs/decisions.md §8. Every route needs a credential; only the owner sees a webhook. */
export const webhooksFeature: Feature<{ webhooks: WebhookService }> = {
  name: 'webhooks',
  endpoints: [
    {
      method: 'post',
      path: '/api/webhook',
      operationId: 'createWebhook',
      tag: 'webhooks',
      auth: true,
      summary: 'Register a webhook (at most 10 per user); the template is test-rendered for each event',
      request: {
        body: { required: true, ...json(CreateWebhook.extend({ url: webhookUrl(CreateWebhook.shape.url) })) },
      },
      responses: {
        ...always,
        ...limited,
        201: { description: 'registered', schema: Webhook },
        400: issues('bad fields, a refused URL or a template that does not render'),
        409: error('the user already has 10 webhooks'),
      },
      handle: ({ webhooks }) => [
        noStore,
        jsonBody(),
        async (ctx) => {
          const input = parse(CreateWebhook, requestBody(ctx));
          ctx.status = 201;
          ctx.body = await webhooks.create(currentUser(ctx).id, input);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/webhook',
      operationId: 'listWebhooks',
      tag: 'webhooks',
      auth: true,
      summary: "The caller's webhooks",
      responses: { ...always, 200: { description: "the caller's webhooks", schema: z.array(Webhook) } },
      handle: ({ webhooks }) => [
        noStore,
        (ctx) => {
          ctx.body = webhooks.list(currentUser(ctx).id);
        },
      ],
    },
    {
      // Before '/api/webhook/{id}' so "preview" is never taken for an id.
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
        200: { description: 'the rendered body', schema: WebhookPreview },
        400: issues('bad fields, or the template error and its position'),
      },
      handle: ({ webhooks }) => [
        noStore,
        jsonBody(),
        (ctx) => {
          ctx.body = webhooks.preview(parse(PreviewWebhook, requestBody(ctx)));
        },
      ],
    },
    {
      method: 'get',
      path: '/api/webhook/{id}',
      operationId: 'getWebhook',
      tag: 'webhooks',
      auth: true,
      summary: "One of the caller's webhooks",
      request: { params: webhookId },
      responses: { ...always, 200: { description: 'the webhook', schema: Webhook }, 404: webhookNotFound },
      handle: ({ webhooks }) => [
        noStore,
        (ctx) => {
          ctx.body = webhooks.get(currentUser(ctx).id, ctx.params.id);
        },
      ],
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
        200: { description: 'the webhook after the change', schema: Webhook },
        400: issues(),
        404: webhookNotFound,
      },
      handle: ({ webhooks }) => [
        noStore,
        jsonBody(),
        async (ctx) => {
          const patch = parse(PatchWebhook, optionalBody(ctx));
          ctx.body = await webhooks.update(currentUser(ctx).id, ctx.params.id, patch);
        },
      ],
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
      handle: ({ webhooks }) => [
        noStore,
        (ctx) => {
          webhooks.delete(currentUser(ctx).id, ctx.params.id);
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'post',
      path: '/api/webhook/{id}/reactivate',
      operationId: 'reactivateWebhook',
      tag: 'webhooks',
      auth: true,
      summary: 'Suspended to active, failure count 0',
      request: { params: webhookId },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the webhook', schema: Webhook },
        404: webhookNotFound,
      },
      handle: ({ webhooks }) => [
        noStore,
        (ctx) => {
          ctx.body = webhooks.reactivate(currentUser(ctx).id, ctx.params.id);
        },
      ],
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
        200: { description: 'attempts', schema: z.array(DeliveryAttempt) },
        404: webhookNotFound,
      },
      handle: ({ webhooks }) => [
        noStore,
        (ctx) => {
          ctx.body = webhooks.attempts(currentUser(ctx).id, ctx.params.id);
        },
      ],
    },
  ],
};
