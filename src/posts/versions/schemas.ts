import { z } from 'zod';
import { queryInt } from '../../http/validate.ts';

/** A page of versions holds at most this many; a larger limit is lowered to it (as on GET /api/post/). */
export const MAX_VERSIONS_LIMIT = 100;

export const VersionsQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, MAX_VERSIONS_LIMIT)),
});

export const RevertBody = z
  .object({
    version: z
      .number()
      .int('version is a whole number')
      .min(1, 'versions are numbered from 1')
      .max(Number.MAX_SAFE_INTEGER),
  })
  .strict();
export type RevertBody = z.infer<typeof RevertBody>;
