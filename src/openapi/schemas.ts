/**
 * Response shapes, as zod schemas. They feed the OpenAPI document (as named components) and the
 * contract test validates every response the suite receives against them, so the document
 * cannot drift from what the service sends. Objects are strict: an undocumented field (say, a
 * leaked passwordHash) fails the test instead of slipping through.
 */
import { TRANSFORMS } from '../hashing/dihedral.ts';
import { MAX_SOURCE, RATINGS, TAG_CATEGORIES } from '../kernel/post-record.ts';
import { MAX_TAG_LENGTH } from '../posts/schemas.ts';
import { TOP_TAGS, TOP_UPLOADERS } from '../search/image-search/facets.ts';
import { THUMBNAIL_SIZES } from '../kernel/media-names.ts';
import { EVENT_KINDS } from '../webhooks/store/events.ts';
import { z } from './zod.ts';

const isoTime = z.string().datetime().openapi({ example: '2024-05-01T10:00:00.000Z' });
/** Post times have exactly milliseconds (docs/decisions.md §4: YYYY-MM-DDThh:mm:ss.mmmZ). */
const postTime = z.string().datetime({ precision: 3 }).openapi({ example: '2024-05-01T10:00:00.000Z' });
const uuid = z.string().uuid();

export const Rating = z.enum(RATINGS).openapi('Rating');

/** docs/decisions.md §19 */
export const TagCategory = z.enum(TAG_CATEGORIES).openapi('TagCategory', { description: 'general unless set' });

export const Tag = z.object({ id: z.number().int(), name: z.string(), category: TagCategory }).strict().openapi('Tag');

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

export const User = z.object({ id: z.number().int(), name: z.string() }).strict().openapi('User');

export const Self = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    permission: z
      .number()
      .int()
      .openapi({ description: 'bits: 0x1 super user, 0x2 create post, 0x4 edit post, 0x2000 delete post' }),
    accessKey: z
      .string()
      .regex(/^[A-Za-z0-9_]+$/)
      .optional()
      .openapi({
        description:
          'send as X-Access-Key; treat it as a password. Absent when the request was made with an app key (docs/decisions.md §14)',
      }),
    createdAt: isoTime,
  })
  .strict()
  .openapi('Self', { description: "The caller's own account. Never carries passwordHash." });

export const Thumbnails = z
  .object(
    Object.fromEntries(THUMBNAIL_SIZES.map((s) => [String(s), z.string().url()])) as Record<
      `${(typeof THUMBNAIL_SIZES)[number]}`,
      z.ZodString
    >,
  )
  .strict()
  .openapi('Thumbnails', {
    description: 'WebP thumbnails by their long side in pixels (never upscaled; animations give their first frame)',
  });

const postFields = {
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

export const CreatedPost = z
  .object({ ...postFields, uploader: Self })
  .strict()
  .openapi('CreatedPost', { description: 'A Post whose uploader is the caller, as Self' });

export const PostPage = z
  .object({ count: z.number().int(), data: z.array(Post) })
  .strict()
  .openapi('PostPage', { description: '`count` is the total; `data` is the requested slice' });

export const DuplicateMatches = z
  .array(
    z
      .object({ image: z.string(), imageURL: z.string().url(), id: uuid, imageHash: z.string().regex(/^[01]{64}$/) })
      .strict(),
  )
  .openapi('DuplicateMatches', { description: 'existing posts within 3 differing bits, closest first' });

export const ValidationIssues = z
  .array(
    z
      .object({
        code: z.string(),
        expected: z.string(),
        received: z.string(),
        path: z.array(z.union([z.string(), z.number()])),
        message: z.string(),
      })
      .strict(),
  )
  .openapi('ValidationIssues', {
    description: "zod-style issues; inside /api/post/search a selector's path is relative to `filter`",
  });

export const ErrorBody = z.object({ error: z.string() }).strict().openapi('Error');

export const LoginFailure = z
  .string()
  .openapi('LoginFailure', { description: 'a JSON string', example: 'invalid username/password' });

export const AccessKey = z
  .object({ accessKey: z.string().regex(/^[A-Za-z0-9_]+$/) })
  .strict()
  .openapi('AccessKey');

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

export const Webhook = z
  .object({
    id: uuid,
    label: z.string().nullable(),
    url: z.string().url(),
    events: z.array(z.enum(EVENT_KINDS)),
    state: z.enum(['active', 'suspended']),
    failureCount: z.number().int().min(0),
    lastDeliveryAt: isoTime.nullable(),
    lastResponseStatus: z.number().int().nullable(),
    createdAt: isoTime,
    template: z.string().nullable().openapi({ description: 'null: the default template' }),
  })
  .strict()
  .openapi('Webhook', { description: 'A webhook registration; the secret is write-only and never returned' });

export const WebhookPreview = z
  .object({ body: z.string() })
  .strict()
  .openapi('WebhookPreview', { description: 'the template rendered on sample data' });

export const DeliveryAttempt = z
  .object({
    deliveryId: uuid.openapi({
      description: 'as sent in X-Webhook-Delivery; repeated attempts of one delivery share it',
    }),
    event: z.enum(EVENT_KINDS),
    postId: uuid,
    outcome: z.enum(['success', 'failure']),
    responseStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int().min(0),
    attemptedAt: isoTime,
  })
  .strict()
  .openapi('DeliveryAttempt');

export const OpenApiDocument = z
  .object({
    openapi: z.string().regex(/^3\.[01]\.\d+$/),
    info: z.object({ title: z.string(), version: z.string() }).passthrough(),
    paths: z.record(z.record(z.unknown())),
  })
  .passthrough()
  .openapi('OpenApiDocument', { description: 'An OpenAPI 3.1 document (this one), or its 3.0 rendering' });

export const Health = z
  .object({ status: z.literal('ok') })
  .strict()
  .openapi('Health');

export const Readiness = z
  .object({
    status: z.enum(['ready', 'not ready']),
    sqlite: z.enum(['up', 'down']),
    elasticsearch: z.enum(['up', 'down']).openapi({
      description: '`up` when every shard of the posts index has an active copy, so searches can be answered',
    }),
    cluster: z.enum(['green', 'yellow', 'red', 'unreachable']).openapi({
      description:
        'the Elasticsearch cluster as a whole: yellow (a replica missing) and red (some other index lacks a primary) do not make the service unready by themselves',
    }),
  })
  .strict()
  .openapi('Readiness');

/** The default webhook body (no template): what receivers get unless the owner wrote their own. */
const person = z.object({ id: z.number().int(), username: z.string() });
export const DefaultWebhookBody = z
  .object({
    event: z.enum(EVENT_KINDS),
    data: z.object({
      imageID: z.number().int(),
      text: z.string(),
      rating: z.enum(['none', 'moderate', 'violet']).openapi({ description: 'spelled `violet` in this payload' }),
      tags: z.array(z.string()),
      imageURL: z.string(),
      createdAt: z.string(),
      uploader: person.nullable(),
      changes: z
        .record(z.object({ old: z.unknown(), new: z.unknown() }))
        .optional()
        .openapi({ description: 'update events only: the changed fields among text, tags, rating' }),
    }),
    initiator: person.nullable(),
  })
  .openapi('DefaultWebhookBody');
