/** What `/image/search` answers (docs/decisions.md §7, §11): declared once, for the document and the code. */
import { RATINGS } from '../../kernel/post-record.ts';
import { ImageSearchImage } from '../../kernel/shapes.ts';
import { z } from '../../util/zod.ts';

export const TOP_TAGS = 20;
export const TOP_UPLOADERS = 10;

const count = z.number().int().min(1);

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
        totalIsEstimate: z.literal(true).optional().openapi({
          description:
            'docs/decisions.md §24: present when a search without facets counted no further than SEARCH_TOTAL_BOUND (10,000 by default): `total` is that bound and there are at least as many matches',
        }),
        images: z.array(ImageSearchImage),
        facets: ImageSearchFacets.optional().openapi({
          description: 'only when the request names `facets`: counts over the whole result, not the page',
        }),
      })
      .strict(),
  })
  .strict()
  .openapi('ImageSearchResult');

/** Facet counts over the whole result (only the requested keys). */
export type Facets = z.infer<typeof ImageSearchFacets>;
/** The page of `/image/search` without its `error: null`: the total, the images, the facets if asked for. */
export type ImageSearchResult = z.infer<typeof ImageSearchResult>['data'];
