import { z } from 'zod';
import { queryInt } from '../http/validate.ts';
import { RATINGS } from './post-record.ts';

export const MAX_TEXT = 10_000;
export const MAX_TAGS = 64;

/** Trimmed, 1–64 characters, no whitespace or control characters; case kept (decisions §4). */
const tagName = z
  .string()
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, 'tag names are 1 to 64 characters')
      .max(64, 'tag names are 1 to 64 characters')
      .regex(/^[^\s\p{C}]+$/u, 'tag names contain no whitespace or control characters'),
  );

const tags = z
  .array(tagName)
  .max(MAX_TAGS, `at most ${MAX_TAGS} tags`)
  .transform((names) => [...new Set(names)]);

export const PostMetadata = z
  .object({
    text: z.string().max(MAX_TEXT, `text is at most ${MAX_TEXT} characters`).optional(),
    tags: tags.optional(),
    rating: z.enum(RATINGS).optional(),
  })
  .strict();
export type PostMetadata = z.infer<typeof PostMetadata>;

/** `force` accepts 0, 1, true, false; absent is 0 (the original once read "0" as true). */
export const Force = z
  .enum(['0', '1', 'true', 'false'], { errorMap: () => ({ message: 'force is 0, 1, true or false' }) })
  .optional()
  .transform((v) => v === '1' || v === 'true');

export const ListQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  // A limit above 1000 is lowered, not refused (decisions §4).
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, 1000)),
});
