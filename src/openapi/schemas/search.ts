/** What the searches return: `/image/search` pages with their facets, and near-duplicate matches. */
import { RATINGS } from '../../kernel/post-record.ts';
import { TOP_TAGS, TOP_UPLOADERS } from '../../search/image-search/facets.ts';
import { z } from '../../util/zod.ts';
import { ImageSearchImage, RobustItem, SimilarItem } from '../../kernel/shapes.ts';

const count = z.number().int().min(1);
export { Transform } from '../../kernel/shapes.ts';

export const ImageSearchFacets = z
  .object({
    tags: z
      .array(z.object({ name: z.string(), count }).strict())
      .max(TOP_TAGS)
      .optional()
      .openapi({
        description: `the ${TOP_TAGS} most frequent tags, count descending, then name (code point order); tags named by tagInclude conditions are left out`,
      }),
    rating: z
      .object(
        Object.fromEntries(RATINGS.map((r) => [r, z.number().int().min(0)])) as Record<
          (typeof RATINGS)[number],
          z.ZodNumber
        >,
      )
      .strict()
      .optional()
      .openapi({ description: 'posts per rating' }),
    uploader: z
      .array(z.object({ id: z.number().int(), name: z.string(), count }).strict())
      .max(TOP_UPLOADERS)
      .optional()
      .openapi({
        description: `the ${TOP_UPLOADERS} most frequent uploaders, count descending, then id; posts without an owner are not counted`,
      }),
  })
  .strict()
  .openapi('ImageSearchFacets', {
    description: 'Exact counts over the whole result; only the requested keys are present',
  });

export const ImageSearchResult = z
  .object({
    error: z.null(),
    data: z
      .object({
        total: z.number().int(),
        images: z.array(ImageSearchImage),
        facets: ImageSearchFacets.optional().openapi({
          description: 'only when the request names `facets`: counts over the whole result, not the page',
        }),
      })
      .strict(),
  })
  .strict()
  .openapi('ImageSearchResult');

export const SimilarResult = z
  .object({
    hash: z.string().regex(/^[01]{64}$/),
    similar: z.array(SimilarItem),
    robust: z.array(RobustItem).optional().openapi({
      description:
        'only with robust=1 (docs/decisions.md §16): posts judged the same picture by the robust method, not already in `similar`, best first',
    }),
  })
  .strict()
  .openapi('SimilarResult', { description: 'matches within maxDiff bits, closest first, then newest' });
