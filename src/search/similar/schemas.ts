import { RobustItem, SimilarItem } from '../../kernel/shapes.ts';
import { z } from '../../util/zod.ts';
import { queryInt } from '../../http/validate.ts';
import { MAX_DIFF } from './find-similar.ts';

/** `POST /api/post/similar` query (docs/decisions.md §5); exported for the OpenAPI document. */
export const query = z.object({
  maxDiff: queryInt({ min: 0, max: MAX_DIFF, default: 8 }),
  limit: queryInt({ min: 1, max: 100, default: 24 }),
  /** docs/decisions.md §11: also mirrored and rotated copies */
  transforms: z.enum(['dihedral']).optional(),
  /** docs/decisions.md §16: also the robust matches (crops, borders, captions), at most `limit` of them */
  robust: z.enum(['0', '1']).default('0'),
});

export type SimilarQuery = z.output<typeof query>;

/**
 * `GET /api/post/{id}/similar` query: as POST's; with transforms the stored post's eight symmetries' hashes
 * (docs/decisions.md §24) are looked up, its own hash alone while they are not computed yet.
 */
export const postQuery = query;

export type PostSimilarQuery = z.output<typeof postQuery>;

/** The answer of both similar lookups (docs/decisions.md §5, §16), declared once. */
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
/** `robust` only when asked for (robust=1). */
export type SimilarAnswer = z.infer<typeof SimilarResult>;
