/** What the searches return: `/image/search` pages with their facets, and near-duplicate matches. */
import { TRANSFORMS } from '../../hashing/dihedral.ts';
import { THUMBNAIL_SIZES } from '../../kernel/media-names.ts';
import { RATINGS } from '../../kernel/post-record.ts';
import { TOP_TAGS, TOP_UPLOADERS } from '../../search/image-search/facets.ts';
import { z } from '../../http/zod.ts';
import { Rating, uuid } from '../../http/shapes.ts';

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
        images: z.array(
          z
            .object({
              text: z.string(),
              rating: Rating,
              id: z.number().int().openapi({ description: "the post's number" }),
              imageUrl: z.string().url(),
              thumbnailUrl: z
                .string()
                .url()
                .openapi({ description: `the ${THUMBNAIL_SIZES[0]} px WebP thumbnail` }),
              tags: z.array(z.string()),
            })
            .strict(),
        ),
        facets: ImageSearchFacets.optional().openapi({
          description: 'only when the request names `facets`: counts over the whole result, not the page',
        }),
      })
      .strict(),
  })
  .strict()
  .openapi('ImageSearchResult');

export const Transform = z.enum(TRANSFORMS).openapi('Transform', {
  description:
    "How the uploaded image relates to the matched post's image: `none` (as is), `mirror` (mirrored left-right), " +
    '`rotate90`/`rotate180`/`rotate270` (turned clockwise by that many degrees), `mirrorRotate90`/`mirrorRotate180`/`mirrorRotate270` ' +
    '(mirrored left-right, then turned clockwise; `mirrorRotate180` is an upside-down flip). When several fit equally well, the earlier in this list.',
});

export const SimilarResult = z
  .object({
    hash: z.string().regex(/^[01]{64}$/),
    similar: z.array(
      z
        .object({
          id: uuid,
          image: z.string(),
          imageURL: z.string().url(),
          diff: z
            .number()
            .int()
            .min(0)
            .max(64)
            .openapi({ description: 'differing bits (under `transform` when present)' }),
          transform: Transform.optional().openapi({
            description: 'only with transforms=dihedral: the symmetry under which this post is closest',
          }),
        })
        .strict(),
    ),
    robust: z
      .array(
        z
          .object({
            id: uuid,
            image: z.string(),
            imageURL: z.string().url(),
            score: z.number().min(0).max(1).openapi({
              description:
                "1 - differing bits / 256 of the best compared pair of robust hashes (for a match by the picture's cells, their differing bits scaled from 64 to 256)",
            }),
            kind: z.enum(['similar', 'crop', 'border', 'overlay']).openapi({
              description:
                "`crop`: the image asked about is this post's picture cropped; `overlay`: it is this post's picture with something added (a band, a caption, a larger frame, a watermark over part of it); `similar`: the whole pictures match",
            }),
          })
          .strict(),
      )
      .optional()
      .openapi({
        description:
          'only with robust=1 (docs/decisions.md §16): posts judged the same picture by the robust method, not already in `similar`, best first',
      }),
  })
  .strict()
  .openapi('SimilarResult', { description: 'matches within maxDiff bits, closest first, then newest' });
