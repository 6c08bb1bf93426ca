import { z } from 'zod';
import { queryInt } from '../http/validate.ts';

export const DEFAULT_TAG_LIMIT = 10;
/** A larger limit is lowered to this, as the list endpoints do. */
export const MAX_TAG_LIMIT = 100;
/** No tag name is longer (decisions §4), so no longer prefix can match. */
export const MAX_PREFIX_LENGTH = 64;

export const TagListQuery = z.object({
  // Code points, as tag names are counted (src/posts/schemas.ts): an emoji is one character.
  prefix: z
    .string()
    .superRefine((p, ctx) => {
      if (Array.from(p).length > MAX_PREFIX_LENGTH)
        ctx.addIssue({ code: 'too_big', maximum: MAX_PREFIX_LENGTH, type: 'string', inclusive: true, message: `prefix is at most ${MAX_PREFIX_LENGTH} characters` });
    })
    .optional()
    .transform((p) => p ?? ''),
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: DEFAULT_TAG_LIMIT }).transform((n) => Math.min(n, MAX_TAG_LIMIT)),
});

/** `PUT /api/tag/[name]/alias` (decisions §15). The target is a tag name, trimmed. */
export const AliasBody = z.object({
  target: z
    .string({ required_error: 'target is required', invalid_type_error: 'target must be a string' })
    .transform((s) => s.trim())
    .pipe(z.string().min(1, 'target must not be empty').regex(/^[^\s\p{C}]+$/u, 'tag names contain no whitespace or control characters')),
});

export const AliasListQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: DEFAULT_TAG_LIMIT }).transform((n) => Math.min(n, MAX_TAG_LIMIT)),
});
