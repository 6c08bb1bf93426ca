import { z } from 'zod';
import { queryInt } from '../http/validate.ts';

/** docs/decisions.md §19 */
export const MAX_POOL_NAME = 100;
export const MAX_POOL_POSTS = 1000;
export const MAX_POOL_DESCRIPTION = 10_000;
export const MAX_POOL_LIMIT = 100;

/** Trimmed, 1–100 characters (code points), no control characters. */
const name = z
  .string({ required_error: 'name is required', invalid_type_error: 'name must be a string' })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, `pool names are 1 to ${MAX_POOL_NAME} characters`)
      .regex(/^[^\p{C}]+$/u, 'pool names contain no control characters')
      .refine((s) => Array.from(s).length <= MAX_POOL_NAME, `pool names are 1 to ${MAX_POOL_NAME} characters`),
  );

const description = z.string().max(MAX_POOL_DESCRIPTION, `a description is at most ${MAX_POOL_DESCRIPTION} characters`);

/** The posts in order, each once: UUIDs or post numbers. */
const postIds = z
  .array(z.string().min(1, 'a post id (UUID or number)'))
  .max(MAX_POOL_POSTS, `a pool holds at most ${MAX_POOL_POSTS} posts`);

export const CreatePool = z.object({ name, description: description.optional(), postIds: postIds.optional() }).strict();
export type CreatePool = z.infer<typeof CreatePool>;

export const PatchPool = z
  .object({ name: name.optional(), description: description.optional(), postIds: postIds.optional() })
  .strict();
export type PatchPool = z.infer<typeof PatchPool>;

export const PoolListQuery = z.object({
  prefix: z
    .string()
    .refine((p) => Array.from(p).length <= MAX_POOL_NAME, `prefix is at most ${MAX_POOL_NAME} characters`)
    .optional()
    .transform((p) => p ?? ''),
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, MAX_POOL_LIMIT)),
});

export const PoolHistoryQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, MAX_POOL_LIMIT)),
});

/** A pool id in a path: a positive integer; anything else is simply not found. */
export const poolIdOf = (raw: string): number | undefined =>
  /^[1-9]\d{0,15}$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
