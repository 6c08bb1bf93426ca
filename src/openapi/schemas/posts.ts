/** Posts, their pages, their versions, and the near-duplicates that refuse an upload. */
import { THUMBNAIL_SIZES } from '../../kernel/media-names.ts';
import { MAX_SOURCE } from '../../kernel/post-record.ts';
import { z } from '../../http/zod.ts';
import { User, Self } from './accounts.ts';
import { isoTime, postTime, Rating, uuid } from '../../http/shapes.ts';
import { Tag } from './tags.ts';

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
