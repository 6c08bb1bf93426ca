import { z } from 'zod';
import { queryInt } from '../http/validate.ts';
import { RATINGS } from '../kernel/post-record.ts';
import { MAX_TTL_SECONDS } from './session-cookie.ts';

/**
 * POST /api/account/login (docs/decisions.md §2). Unknown fields are dropped rather than
 * refused, as clients of the original send extras. A name that cannot exist is not a schema
 * error: it is a failed login like any other, so the answer does not tell names apart.
 */
export const loginSchema = z.object({
  username: z.string(),
  password: z.string(),
  ttl: z.number().int().min(1).max(MAX_TTL_SECONDS).optional(),
});

export type LoginInput = z.infer<typeof loginSchema>;

/**
 * POST /api/account/register (docs/decisions.md §14): as login, with an optional email. Names and passwords are checked
 * by the CLI's rules.
 */
export const registerSchema = z.object({
  username: z.string(),
  password: z.string(),
  email: z.string().nullable().optional(),
});

/** POST /api/account/keys (docs/decisions.md §14) */
export const appKeySchema = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(64, 'name is at most 64 characters'),
  permission: z.number().int().min(0).max(0xffff),
});

/** docs/decisions.md §18: a blacklist is at most 100 lines of at most 200 characters. */
export const MAX_BLACKLIST_LINES = 100;
export const MAX_BLACKLIST_LINE = 200;

/**
 * PUT /api/account/preferences (docs/decisions.md §14, §18). A field left out keeps what is stored (so a
 * client that knows only `ratings` does not wipe a blacklist). Blacklist lines are stored with their
 * tags separated by one space; blank lines are dropped.
 */
export const preferencesSchema = z
  .object({
    ratings: z
      .array(z.enum(RATINGS))
      .max(RATINGS.length * 2)
      .optional(),
    blacklist: z
      .array(
        z
          .string()
          .max(MAX_BLACKLIST_LINE, `a blacklist line is at most ${MAX_BLACKLIST_LINE} characters`)
          .transform((line) => line.trim().split(/\s+/u).filter(Boolean).join(' ')),
      )
      .max(MAX_BLACKLIST_LINES, `a blacklist is at most ${MAX_BLACKLIST_LINES} lines`)
      .transform((lines) => lines.filter((line) => line !== ''))
      .optional(),
  })
  .strict();

/** PATCH /api/user/[id] (docs/decisions.md §14): at least one field. */
export const userPatchSchema = z
  .object({
    name: z.string().optional(),
    email: z.string().nullable().optional(),
    permission: z.number().int().min(0).max(0xffff).optional(),
  })
  .strict()
  .refine(
    (p) => p.name !== undefined || p.email !== undefined || p.permission !== undefined,
    'name, email or permission is required',
  );

/** GET /api/user (docs/decisions.md §14) */
export const userListQuery = z.object({
  prefix: z.string().max(32).default(''),
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 1, default: 50 }).transform((n) => Math.min(n, 200)),
});
