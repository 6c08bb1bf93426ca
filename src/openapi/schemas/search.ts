/** What the searches return: `/image/search` pages with their facets, and near-duplicate matches. */
import { z } from '../../util/zod.ts';
import { RobustItem, SimilarItem } from '../../kernel/shapes.ts';

export { Transform } from '../../kernel/shapes.ts';
export { ImageSearchFacets, ImageSearchResult } from '../../search/image-search/result-shapes.ts';

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
