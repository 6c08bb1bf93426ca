import { z } from 'zod';
import { queryInt } from '../http/validate.ts';
import { REQUEST_STATUSES } from './deletion-request-repository.ts';

export const MAX_REASON = 2000;

/** A reason is required: trimmed, 1..2000 characters (code points). */
export const DeletionRequestBody = z
  .object({
    reason: z
      .string()
      .transform((s) => s.trim())
      .pipe(
        z
          .string()
          .min(1, 'a reason is required')
          .superRefine((s, ctx) => {
            if (Array.from(s).length > MAX_REASON)
              ctx.addIssue({
                code: 'too_big',
                maximum: MAX_REASON,
                type: 'string',
                inclusive: true,
                message: `reason is at most ${MAX_REASON} characters`,
              });
          }),
      ),
  })
  .strict();

export const DeletionRequestListQuery = z.object({
  status: z.enum(REQUEST_STATUSES).optional(),
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, 1000)),
});

/** A request id in the path: a positive integer, else simply not found. */
export const REQUEST_ID = /^[1-9]\d{0,15}$/;

export const MergeBody = z.object({ into: z.string().min(1, 'into names the post to merge into (its id)') }).strict();
