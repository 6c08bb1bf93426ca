/** Tags and their post counts (docs/decisions.md §10, §19). */
import { MAX_TAG_LENGTH } from '../../posts/schemas.ts';
import { z } from '../../util/zod.ts';

import { TagCategory } from '../../kernel/shapes.ts';

export { Tag, TagCategory } from '../../kernel/shapes.ts';

/**
 * Tag names as docs/decisions.md §4 allows them: 1 to 64 characters, no whitespace or control characters.
 * Counted in code points by the pattern (as the upload's rule counts them): `max(64)` would count
 * UTF-16 units and refuse a stored name of 64 emoji.
 */
const tagName = z.string().regex(new RegExp(`^[^\\s\\p{C}]{1,${MAX_TAG_LENGTH}}$`, 'u'));

export const TagCount = z
  .object({
    id: z.number().int(),
    name: tagName,
    count: z.number().int().min(1).openapi({ description: 'posts that carry the tag' }),
    category: TagCategory,
    aliasOf: tagName
      .optional()
      .openapi({ description: 'on a prefix hit through an alias: the alias that matched (the tag is its target)' }),
  })
  .strict()
  .openapi('TagCount');

export const TagPage = z
  .object({ count: z.number().int().min(0).openapi({ description: 'tags that match' }), data: z.array(TagCount) })
  .strict()
  .openapi('TagPage', { description: 'most used first, then by name' });
