import { z } from 'zod';
import { MAX_SOURCE, RATINGS } from '../kernel/post-record.ts';

export const MAX_TEXT = 10_000;
export const MAX_TAGS = 64;

export { MAX_TAG_LENGTH } from '../kernel/post-record.ts';
import { MAX_TAG_LENGTH } from '../kernel/post-record.ts';
/**
 * The tag-name rule on the raw value as one pattern (ECMA-262, `u` flag; quantifiers count code
 * points like JSON Schema's lengths), for the OpenAPI document: `tagName` below enforces the same.
 */
export const TAG_NAME_PATTERN = `^\\s*[^\\s\\p{C}]{1,${MAX_TAG_LENGTH}}\\s*$`;

/** Trimmed, 1–64 characters (code points), no whitespace or control characters; case kept (docs/decisions.md §4). */
const tagName = z
  .string()
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, `tag names are 1 to ${MAX_TAG_LENGTH} characters`)
      .regex(/^[^\s\p{C}]+$/u, 'tag names contain no whitespace or control characters')
      // Code points, not UTF-16 units (zod's .max): an emoji is one character, as in JSON Schema.
      .superRefine((s, ctx) => {
        if (Array.from(s).length > MAX_TAG_LENGTH)
          ctx.addIssue({
            code: 'too_big',
            maximum: MAX_TAG_LENGTH,
            type: 'string',
            inclusive: true,
            message: `tag names are 1 to ${MAX_TAG_LENGTH} characters`,
          });
      }),
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
    // docs/decisions.md §19: where the picture came from, and its parent post (UUID or number; null: none).
    source: z.string().max(MAX_SOURCE, `source is at most ${MAX_SOURCE} characters`).optional(),
    parentId: z.string().min(1, 'parentId names a post (its UUID or number) or is null').nullable().optional(),
  })
  .strict();
export type PostMetadata = z.infer<typeof PostMetadata>;

/** `force` accepts 0, 1, true, false; absent is 0 (the original once read "0" as true). */
export const Force = z
  .enum(['0', '1', 'true', 'false'], { errorMap: () => ({ message: 'force is 0, 1, true or false' }) })
  .optional()
  .transform((v) => v === '1' || v === 'true');

/**
 * POST /api/post/upload-url (issue 26). `contentType` is signed into the URL (the PUT must send it;
 * image/*, video/* (docs/decisions.md §21) or octet-stream, as a multipart image part may declare);
 * `size`, when given, too (the PUT must be exactly that long, so a bucket never holds more than was
 * allowed). `expiresIn` (seconds)
 * asks for a shorter life than DIRECT_UPLOAD_EXPIRES_S; a longer one is lowered to it.
 */
export const UploadUrlRequest = z
  .object({
    contentType: z
      .string()
      .regex(
        /^(image\/[\w.+-]+|video\/[\w.+-]+|application\/octet-stream)$/i,
        'contentType is image/*, video/* or application/octet-stream',
      )
      .optional(),
    size: z.number().int().positive().optional(),
    expiresIn: z.number().int().positive().optional(),
  })
  .strict();
export type UploadUrlRequest = z.infer<typeof UploadUrlRequest>;

/** GET /api/post/'s paging: every list's (a limit above 1000 is lowered, not refused: docs/decisions.md §4). */
export { listQuery as ListQuery } from '../search/paging-params.ts';
