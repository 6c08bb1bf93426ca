/** Webhooks, their delivery attempts, and the body receivers get by default (docs/decisions.md §8). */
import { EVENT_KINDS } from '../../webhook-store/events.ts';
import { z } from '../../util/zod.ts';

export { DeliveryAttempt, Webhook, WebhookPreview } from '../../webhooks/schemas.ts';

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
