/** Request bodies of the webhook management endpoints (docs/decisions.md §8). Unknown keys are 400. */
import { z } from 'zod';
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
