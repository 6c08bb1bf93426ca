import { TagCategory } from '../kernel/shapes.ts';
import { z } from '../util/zod.ts';
import { queryInt } from '../http/validate.ts';
import { MAX_TAG_LENGTH, TAG_CATEGORIES } from '../kernel/post-record.ts';

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

// The responses (docs/decisions.md §10, §15, §19), declared once.
/**
 * Tag names as docs/decisions.md §4 allows them: 1 to 64 characters, no whitespace or control characters.
 * Counted in code points by the pattern (as the upload's rule counts them): `max(64)` would count
 * UTF-16 units and refuse a stored name of 64 emoji.
 */
const storedTagName = z.string().regex(new RegExp(`^[^\\s\\p{C}]{1,${MAX_TAG_LENGTH}}$`, 'u'));

export const TagCount = z
  .object({
    id: z.number().int(),
    name: storedTagName,
    count: z.number().int().min(1).openapi({ description: 'posts that carry the tag' }),
    category: TagCategory,
    aliasOf: storedTagName
      .optional()
      .openapi({ description: 'on a prefix hit through an alias: the alias that matched (the tag is its target)' }),
  })
  .strict()
  .openapi('TagCount');

export const TagPage = z
  .object({ count: z.number().int().min(0).openapi({ description: 'tags that match' }), data: z.array(TagCount) })
  .strict()
  .openapi('TagPage', { description: 'most used first, then by name' });

export const TagJob = z
  .object({
    id: z.number().int(),
    tag: z.string(),
    implies: z.string(),
    initiatorId: z.number().int().nullable(),
    initiatorName: z.string().nullable(),
    cursor: z.number().int().openapi({ description: 'the last post number done' }),
    lastSeq: z
      .number()
      .int()
      .openapi({ description: 'the highest post number when the job began (later posts were written under the rule)' }),
    scanned: z.number().int(),
    changed: z.number().int().openapi({ description: 'posts edited so far (each one version and one update event)' }),
    state: z.enum(['running', 'done']),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .strict()
  .openapi('TagJob', { description: 'applying an implication to the posts there were when it was made' });

// A fresh object rather than TagCount.extend: the document would render that as TagCount (closed to
// other properties) and more, which no response could satisfy.
export const TagDetail = z
  .object({
    ...TagCount.shape,
    aliases: z.array(z.string()).openapi({ description: 'aliases of this tag' }),
    implies: z.array(z.string()).openapi({ description: 'tags this one implies directly' }),
    impliedBy: z.array(z.string()).openapi({ description: 'tags that imply this one directly' }),
    jobs: z
      .array(TagJob)
      .openapi({ description: 'the latest jobs applying implications from or to this tag, newest first' }),
  })
  .strict()
  .openapi('TagDetail');

export const Alias = z
  .object({ name: z.string(), target: z.string(), createdAt: z.string() })
  .strict()
  .openapi('TagAlias');
