/**
 * The shapes the outside sees of a post, as zod schemas: declared once, they give the OpenAPI document
 * its components and the code its types (src/kernel/views.ts builds values of them). Objects are
 * strict, so the contract test catches a field the document does not name.
 */
import { THUMBNAIL_SIZES } from './media-names.ts';
import { MAX_SOURCE, MEDIA_KINDS, RATINGS, TAG_CATEGORIES } from './post-record.ts';
import { TRANSFORMS } from '../hashing/dihedral.ts';
import { z } from '../util/zod.ts';

export { isoTime, postTime, uuid } from '../util/zod.ts';
import { isoTime, postTime, uuid } from '../util/zod.ts';

export const Rating = z.enum(RATINGS).openapi('Rating');

/** A person as every response names one: an account's id and name. */
export const User = z.object({ id: z.number().int(), name: z.string() }).strict().openapi('User');

/** docs/decisions.md §19 */
export const TagCategory = z.enum(TAG_CATEGORIES).openapi('TagCategory', { description: 'general unless set' });

export const Tag = z.object({ id: z.number().int(), name: z.string(), category: TagCategory }).strict().openapi('Tag');

export const Thumbnails = z
  .object(
    Object.fromEntries(THUMBNAIL_SIZES.map((s) => [String(s), z.string().url()])) as Record<
      `${(typeof THUMBNAIL_SIZES)[number]}`,
      z.ZodString
    >,
  )
  .strict()
  .openapi('Thumbnails', {
    description:
      "WebP thumbnails by their long side in pixels (never upscaled); an animation's or a video's show its poster frame",
  });

/** docs/decisions.md §21: what the post's file is, read from its bytes. */
export const Media = z
  .object({
    kind: z.enum(MEDIA_KINDS).openapi({ description: 'a still image, an animation (GIF, APNG, WebP) or a video' }),
    mime: z.string().openapi({ description: "the stored file's type", example: 'video/webm' }),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "the stored file's size; null until measured (posts stored before it was recorded)" }),
    duration: z.number().nullable().openapi({ description: 'seconds; null for a still image' }),
    frames: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'null for a still image, or where the file does not say' }),
    hasAudio: z.boolean(),
  })
  .strict()
  .openapi('Media');
/** docs/decisions.md §22: the site (gallery-dl category or host), the post id and address there, its uploader there. */
export const PostOriginShape = z
  .object({
    site: z.string(),
    id: z.string(),
    url: z.string(),
    uploader: z.string().nullable().openapi({ description: "the uploader's name there; null when the site gave none" }),
  })
  .strict()
  .openapi('PostOrigin');

export const postFields = {
  id: uuid,
  text: z.string(),
  rating: Rating,
  image: z
    .string()
    .openapi({ description: 'image id plus file extension', example: '0190c3f0-0000-7000-8000-000000000000.png' }),
  imageURL: z.string().url(),
  imageHash: z
    .string()
    .regex(/^[01]{64}$/)
    .openapi({ description: '64-bit perceptual hash as 0/1 characters' }),
  createdAt: postTime,
  updatedAt: postTime,
  uploaderId: z.number().int().nullable().openapi({ description: 'null for legacy posts' }),
  // A union rather than .nullable(): zod-to-openapi 7.3 drops the null from a nullable $ref in 3.1
  // output (asteasolutions/zod-to-openapi#387), which the contract test's schema check catches.
  uploader: z.union([User, z.null()]).openapi({ description: 'null for legacy posts' }),
  tags: z
    .array(Tag)
    .openapi({ description: 'by category (artist, copyright, character, general, meta), then by name' }),
  thumbnails: Thumbnails,
  favorites: z.number().int().min(0).openapi({ description: 'how many accounts favorited it' }),
  // docs/decisions.md §18
  score: z.number().int().openapi({ description: 'upvotes - downvotes' }),
  upvotes: z.number().int().min(0),
  downvotes: z.number().int().min(0),
  comments: z.number().int().min(0).openapi({ description: 'how many comments it has' }),
  source: z.string().max(MAX_SOURCE).openapi({ description: "where the picture came from; '' when unknown" }),
  parentId: uuid.nullable().openapi({ description: "the parent post's UUID, or null" }),
  aggr: z.number().optional().openapi({ description: 'only on imported legacy posts that have one' }),
  media: Media,
  // docs/decisions.md §22
  origin: PostOriginShape.optional().openapi({
    description: 'only on imported posts: where the post was first imported from',
  }),
};

export const Post = z.object(postFields).strict().openapi('Post');

const change = <T extends z.ZodTypeAny>(value: T) => z.object({ old: value, new: value }).strict();

export const PostVersion = z
  .object({
    version: z.number().int().min(1),
    text: z.string(),
    rating: Rating,
    tags: z.array(z.string()).openapi({ description: 'tag names, sorted' }),
    editor: z
      .union([User, z.null()])
      .openapi({ description: 'who made this version; null for imports, legacy posts and removed accounts' }),
    createdAt: isoTime,
    source: z.string(),
    parentId: uuid.nullable().openapi({ description: 'the parent post then (it may have been deleted since)' }),
    changes: z
      .object({
        text: change(z.string()).optional(),
        tags: change(z.array(z.string())).optional(),
        rating: change(Rating).optional(),
        source: change(z.string()).optional(),
        parentId: change(uuid.nullable()).optional(),
      })
      .strict()
      .optional()
      .openapi({ description: 'the fields that differ from the previous version; absent on version 1' }),
  })
  .strict()
  .openapi('PostVersion', {
    description: "One version of a post's text, rating, tags, source and parent (docs/decisions.md §9, §19)",
  });

export const PostVersionPage = z
  .object({ count: z.number().int().min(0), data: z.array(PostVersion) })
  .strict()
  .openapi('PostVersionPage', {
    description: '`count` is the number of versions; `data` the requested slice, newest first',
  });

export const PostPage = z
  .object({
    count: z.number().int(),
    countIsEstimate: z.literal(true).optional().openapi({
      description:
        '/api/post/search only (docs/decisions.md §24): present when the count stopped at SEARCH_TOTAL_BOUND (10,000 by default); there are at least `count` matches',
    }),
    data: z.array(Post),
  })
  .strict()
  .openapi('PostPage', { description: '`count` is the total; `data` is the requested slice' });

export const DuplicateMatches = z
  .array(
    z
      .object({ image: z.string(), imageURL: z.string().url(), id: uuid, imageHash: z.string().regex(/^[01]{64}$/) })
      .strict(),
  )
  .openapi('DuplicateMatches', { description: 'existing posts within 3 differing bits, closest first' });

/** One image of `/image/search` (docs/decisions.md §7): the post number as `id`, tag names only. */
export const ImageSearchImage = z
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
    media: z
      .object({
        kind: z.enum(['animation', 'video']),
        duration: z.number().nullable().openapi({ description: 'seconds' }),
      })
      .strict()
      .optional()
      .openapi({ description: 'only on an animation or a video (docs/decisions.md §21): what it is and how long' }),
  })
  .strict();
export type ImageSearchImage = z.infer<typeof ImageSearchImage>;

export const Transform = z.enum(TRANSFORMS).openapi('Transform', {
  description:
    "How the uploaded image relates to the matched post's image: `none` (as is), `mirror` (mirrored left-right), " +
    '`rotate90`/`rotate180`/`rotate270` (turned clockwise by that many degrees), `mirrorRotate90`/`mirrorRotate180`/`mirrorRotate270` ' +
    '(mirrored left-right, then turned clockwise; `mirrorRotate180` is an upside-down flip). When several fit equally well, the earlier in this list.',
});

/**
 * One match of `/api/post/similar` (docs/decisions.md §5): `transform` only when mirrored and rotated copies were asked
 * for.
 */
export const SimilarItem = z
  .object({
    id: uuid,
    image: z.string(),
    imageURL: z.string().url(),
    diff: z.number().int().min(0).max(64).openapi({ description: 'differing bits (under `transform` when present)' }),
    transform: Transform.optional().openapi({
      description: 'only with transforms=dihedral: the symmetry under which this post is closest',
    }),
  })
  .strict();
export type SimilarItem = z.infer<typeof SimilarItem>;

/** One robust match of `/api/post/similar?robust=1` (docs/decisions.md §16): `score` 0..1, `kind` what was detected. */
export const RobustItem = z
  .object({
    id: uuid,
    image: z.string(),
    imageURL: z.string().url(),
    score: z.number().min(0).max(1).openapi({
      description:
        "1 - differing bits / 256 of the best compared pair of robust hashes (for a match by the picture's cells, their differing bits scaled from 64 to 256)",
    }),
    kind: z.enum(['similar', 'crop', 'border', 'overlay', 'frames']).openapi({
      description:
        "`crop`: the image asked about is this post's picture cropped; `overlay`: it is this post's picture with something added (a band, a caption, a larger frame, a watermark over part of it); `similar`: the whole pictures match; `frames`: a frame of the image asked about (a still, or a frame of an animation or video) is a frame of this post's animation or video (docs/decisions.md §21; `score` is then 1 - differing bits / 64)",
    }),
  })
  .strict();
export type RobustItem = z.infer<typeof RobustItem>;

/** The spec's Post (§2), as every endpoint returns it. */
export type PostView = z.infer<typeof Post>;
/** One entry of the 409 body of an upload that has near-duplicates (docs/decisions.md §4). */
export type DuplicateMatchView = z.infer<typeof DuplicateMatches>[number];
