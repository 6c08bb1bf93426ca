/** Webhooks, their delivery attempts, and the body receivers get by default (docs/decisions.md §8). */
import { EVENT_KINDS } from '../../webhook-store/events.ts';
import { z } from '../../util/zod.ts';
import { isoTime, uuid } from '../../kernel/shapes.ts';

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

export const DeliveryAttempt = z
  .object({
    deliveryId: uuid.openapi({
      description: 'as sent in X-Webhook-Delivery; repeated attempts of one delivery share it',
    }),
    event: z.enum(EVENT_KINDS),
    postId: uuid,
    outcome: z.enum(['success', 'failure']),
    responseStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int().min(0),
    attemptedAt: isoTime,
  })
  .strict()
  .openapi('DeliveryAttempt');

/** The default webhook body (no template): what receivers get unless the owner wrote their own. */
const person = z.object({ id: z.number().int(), username: z.string() });
export const DefaultWebhookBody = z
  .object({
    event: z.enum(EVENT_KINDS),
    data: z.object({
      imageID: z.number().int(),
      text: z.string(),
      rating: z.enum(['none', 'moderate', 'violet']).openapi({ description: 'spelled `violet` in this payload' }),
      tags: z.array(z.string()),
      imageURL: z.string(),
      createdAt: z.string(),
      uploader: person.nullable(),
      changes: z
        .record(z.object({ old: z.unknown(), new: z.unknown() }))
        .optional()
        .openapi({ description: 'update events only: the changed fields among text, tags, rating' }),
    }),
    initiator: person.nullable(),
  })
  .openapi('DefaultWebhookBody');
