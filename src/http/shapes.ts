/** The error bodies every endpoint may answer with (the one error table: src/http/errors.ts). */
import { z } from '../util/zod.ts';

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
