import { User } from '../kernel/shapes.ts';
import { z } from '../util/zod.ts';
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

// The responses (docs/decisions.md §19), declared once: the document shows them, the code is typed by them.
const time = z.string().datetime({ precision: 3 });

export const Pool = z
  .object({
    id: z.number().int().min(1),
    name: z.string(),
    description: z.string(),
    postCount: z.number().int().min(0).max(MAX_POOL_POSTS),
    createdAt: time,
    updatedAt: time,
  })
  .strict()
  .openapi('Pool');

export const PoolDetail = z
  .object({
    ...Pool.shape,
    postIds: z.array(z.string().uuid()).max(MAX_POOL_POSTS).openapi({ description: "the posts' UUIDs, in order" }),
  })
  .strict()
  .openapi('PoolDetail');

const change = <T extends z.ZodTypeAny>(value: T) => z.object({ old: value, new: value }).strict();
export const PoolChange = z
  .object({
    id: z.number().int(),
    poolId: z.number().int(),
    action: z.enum(['create', 'edit', 'delete', 'post-deleted', 'post-merged']).openapi({
      description:
        'post-deleted: a post of the pool was deleted; post-merged: merged into another, which took its place',
    }),
    user: z.union([User, z.null()]).openapi({ description: 'who made it; null once the account is removed' }),
    changes: z
      .object({
        name: change(z.string()).optional(),
        description: change(z.string()).optional(),
        postIds: change(z.array(z.string().uuid())).optional(),
      })
      .strict()
      .openapi({ description: "what changed; a pool's creation changes from empty values, its deletion to them" }),
    createdAt: time,
  })
  .strict()
  .openapi('PoolChange');

export const PoolPlace = z
  .object({
    pool: Pool,
    position: z.number().int().min(0).openapi({ description: 'the post is the position+1st' }),
    previous: z.string().uuid().nullable(),
    next: z.string().uuid().nullable(),
  })
  .strict();

/** A pool as stored, with its post count. */
export type PoolRecord = z.infer<typeof Pool>;
/** A pool with its posts (UUIDs) in order. */
export type PoolDetail = z.infer<typeof PoolDetail>;
/** One change of a pool: what it altered (post ids are UUIDs: they read after a post is gone), who, when. */
export type PoolChangeRecord = z.infer<typeof PoolChange>;
export type PoolChanges = PoolChangeRecord['changes'];
export type PoolAction = PoolChangeRecord['action'];
/** A pool a post is in, with the posts before and after it (the post page's previous/next). */
export type PoolPlaceView = z.infer<typeof PoolPlace>;
