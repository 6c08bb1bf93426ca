/** Request bodies of the webhook management endpoints (docs/decisions.md §8). Unknown keys are 400. */
import { isoTime, uuid } from '../kernel/shapes.ts';
import { z } from '../util/zod.ts';
import { EVENT_KINDS } from '../webhook-store/events.ts';
import { TEMPLATE_LIMITS } from '../../lib/go-template/index.ts';

export const MAX_URL_LENGTH = 2048;
export const MAX_LABEL_LENGTH = 200;

const EventKind = z.enum(EVENT_KINDS);

const template = z
  .string()
  .refine((s) => Buffer.byteLength(s, 'utf8') <= TEMPLATE_LIMITS.maxSourceBytes, {
    message: `template must be at most ${TEMPLATE_LIMITS.maxSourceBytes} bytes`,
  })
  .nullable();

const fields = {
  url: z.string().min(1).max(MAX_URL_LENGTH),
  // Write-only. Kept as given: receivers key their HMAC with exactly these UTF-8 bytes.
  secret: z.string().min(1).max(256),
  events: z.array(EventKind).nonempty(),
  label: z.string().max(MAX_LABEL_LENGTH).nullable(),
  // null or absent: the default template.
  template,
};

export const CreateWebhook = z
  .object({ ...fields, label: fields.label.optional(), template: fields.template.optional() })
  .strict();
export type CreateWebhook = z.infer<typeof CreateWebhook>;

export const PatchWebhook = z.object(fields).partial().strict();
export type PatchWebhook = z.infer<typeof PatchWebhook>;

export const PreviewWebhook = z.object({ template: fields.template.optional(), event: EventKind }).strict();
export type PreviewWebhook = z.infer<typeof PreviewWebhook>;

// The responses, declared once (the document shows them; the service is typed by them).
export const Webhook = z
  .object({
    id: uuid,
    label: z.string().nullable(),
    url: z.string().url(),
    events: z.array(z.enum(EVENT_KINDS)),
    state: z.enum(['active', 'suspended']),
    failureCount: z.number().int().min(0),
    lastDeliveryAt: isoTime.nullable(),
    lastResponseStatus: z.number().int().nullable(),
    createdAt: isoTime,
    template: z.string().nullable().openapi({ description: 'null: the default template' }),
  })
  .strict()
  .openapi('Webhook', { description: 'A webhook registration; the secret is write-only and never returned' });

export const WebhookPreview = z
  .object({ body: z.string() })
  .strict()
  .openapi('WebhookPreview', { description: 'the template rendered on sample data' });

/** The record as the API returns it: everything but the owner and the secret. */
export type WebhookView = z.infer<typeof Webhook>;

export { DeliveryAttempt } from '../webhook-store/attempts.ts';
