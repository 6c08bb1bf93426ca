import { z } from 'zod';
import { queryInt } from '../http/validate.ts';
import { TAG_CATEGORIES } from '../kernel/post-record.ts';

export const DEFAULT_TAG_LIMIT = 10;
/** A larger limit is lowered to this, as the list endpoints do. */
export const MAX_TAG_LIMIT = 100;
/** No tag name is longer (docs/decisions.md §4), so no longer prefix can match. */
export const MAX_PREFIX_LENGTH = 64;

export const TagListQuery = z.object({
  // Code points, as tag names are counted (src/posts/schemas.ts): an emoji is one character.
  prefix: z
    .string()
    .superRefine((p, ctx) => {
      if (Array.from(p).length > MAX_PREFIX_LENGTH)
        ctx.addIssue({
          code: 'too_big',
          maximum: MAX_PREFIX_LENGTH,
          type: 'string',
          inclusive: true,
          message: `prefix is at most ${MAX_PREFIX_LENGTH} characters`,
        });
    })
    .optional()
    .transform((p) => p ?? ''),
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: DEFAULT_TAG_LIMIT }).transform((n) => Math.min(n, MAX_TAG_LIMIT)),
});

/** A tag name as docs/decisions.md §4 allows it: 1 to 64 characters, no whitespace or control characters. */
const tagName = (what: string) =>
  z
    .string({ required_error: `${what} is required`, invalid_type_error: `${what} must be a string` })
    .transform((s) => s.trim())
    .pipe(
      z
        .string()
        .min(1, `${what} must not be empty`)
        .regex(/^[^\s\p{C}]+$/u, 'tag names contain no whitespace or control characters')
        .refine(
          (s) => Array.from(s).length <= MAX_PREFIX_LENGTH,
          `tag names are at most ${MAX_PREFIX_LENGTH} characters`,
        ),
    );

/** `PUT /api/tag/[name]/alias` (docs/decisions.md §15). */
export const AliasBody = z.object({ target: tagName('target') });
/** The names in governance paths: `[name]` and `[other]`. */
export const GovernedNames = z.object({ name: tagName('name'), other: tagName('other').optional() });

export const AliasListQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: DEFAULT_TAG_LIMIT }).transform((n) => Math.min(n, MAX_TAG_LIMIT)),
});

/** `PUT /api/tag/[name]/category` (docs/decisions.md §19). */
export const CategoryBody = z
  .object({
    category: z.enum(TAG_CATEGORIES, {
      errorMap: () => ({ message: `category is one of ${TAG_CATEGORIES.join(', ')}` }),
    }),
  })
  .strict();
