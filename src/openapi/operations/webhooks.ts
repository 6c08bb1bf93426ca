/** Webhooks (docs/decisions.md §8): registration, preview, reactivation and delivery attempts. */
import type { ZodTypeAny } from 'zod';
import { CreateWebhook, PatchWebhook, PreviewWebhook } from '../../webhooks/schemas.ts';
import { always, error, issues, json, limited, type Operation, webhookId, webhookNotFound } from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

/** A webhook target as the service accepts it on save (src/webhooks/ssrf.ts). */
const webhookUrl = <T extends ZodTypeAny>(schema: T) =>
  schema.openapi({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#]+(?:[/?#]|$)',
    description:
      'an absolute http or https URL without credentials, whose host is public (not loopback, private, link-local or reserved, also after DNS resolution); stored WHATWG-normalised',
  });

export const WEBHOOK_OPERATIONS: Operation[] = [
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
];
