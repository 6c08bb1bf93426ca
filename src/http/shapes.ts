/** Shapes and fields every area's responses share: times, ids, the rating, and the error bodies. */
import { RATINGS } from '../kernel/post-record.ts';
import { z } from './zod.ts';

export const isoTime = z.string().datetime().openapi({ example: '2024-05-01T10:00:00.000Z' });
/** Post times have exactly milliseconds (docs/decisions.md §4: YYYY-MM-DDThh:mm:ss.mmmZ). */
export const postTime = z.string().datetime({ precision: 3 }).openapi({ example: '2024-05-01T10:00:00.000Z' });
export const uuid = z.string().uuid();

export const Rating = z.enum(RATINGS).openapi('Rating');

export const ValidationIssues = z
  .array(
    z
      .object({
        code: z.string(),
        expected: z.string(),
        received: z.string(),
        path: z.array(z.union([z.string(), z.number()])),
        message: z.string(),
      })
      .strict(),
  )
  .openapi('ValidationIssues', {
    description: "zod-style issues; inside /api/post/search a selector's path is relative to `filter`",
  });

export const ErrorBody = z.object({ error: z.string() }).strict().openapi('Error');

/** A person as every response names one: an account's id and name. */
export const User = z.object({ id: z.number().int(), name: z.string() }).strict().openapi('User');
