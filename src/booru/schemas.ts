/**
 * The Danbooru API's response shapes (docs/decisions.md §20, §23), declared once: the OpenAPI document
 * lists them and `toBooruPost` (./view.ts) is typed by them, so a field added to one and not the other
 * does not compile.
 */
import { z } from '../util/zod.ts';

const str = z.string();
const int = z.number().int();

export const BooruError = z
  .object({ success: z.literal(false), message: z.string() })
  .strict()
  .openapi('BooruError', { description: "Danbooru's error shape, with the status the rest of the API would use" });

export const BooruPost = z
  .object({
    id: int.openapi({ description: 'the post number' }),
    created_at: str.openapi({ description: 'ISO 8601 with an offset' }),
    updated_at: str,
    uploader_id: int.nullable(),
    score: int,
    up_score: int,
    down_score: int,
    fav_count: int,
    source: str,
    md5: str.nullable().openapi({ description: 'of the stored file; null until the backfill reached an old post' }),
    rating: z.enum(['g', 'q', 'e']).openapi({ description: 'g is none, q moderate, e violent' }),
    image_width: int,
    image_height: int,
    file_ext: str,
    file_size: int.nullable(),
    file_url: str,
    large_file_url: str,
    preview_file_url: str,
    tag_string: str.openapi({ description: 'tag names separated by spaces' }),
    tag_string_general: str,
    tag_string_artist: str,
    tag_string_copyright: str,
    tag_string_character: str,
    tag_string_meta: str.openapi({
      description: 'with the tags Danbooru adds by itself, computed from the file: animated, video, sound',
    }),
    tag_count: int,
    tag_count_general: int,
    tag_count_artist: int,
    tag_count_copyright: int,
    tag_count_character: int,
    tag_count_meta: int,
    parent_id: int.nullable(),
    has_children: z.boolean(),
    pool_string: str,
    last_noted_at: str.nullable().openapi({ description: 'when its newest note was written; null without notes' }),
    is_deleted: z.boolean(),
    is_pending: z.boolean(),
    is_flagged: z.boolean(),
    is_banned: z.boolean(),
    media_asset: z
      .object({
        id: int.openapi({ description: 'the post number (one file per post)' }),
        md5: str.nullable(),
        file_ext: str,
        file_size: int.nullable(),
        image_width: int,
        image_height: int,
        duration: z.number().nullable().openapi({ description: 'seconds; null for a still image' }),
      })
      .strict()
      .openapi({ description: "the stored file (docs/decisions.md §21), as Danbooru's media asset" }),
  })
  .strict()
  .openapi('BooruPost', { description: "a post in Danbooru's shape with imgpost's values" });

/** docs/decisions.md §22: a comment as Danbooru's /comments.json shows it, with its author's name. */
export const BooruComment = z
  .object({
    id: int,
    post_id: int,
    creator_id: int
      .nullable()
      .openapi({ description: 'null once the account is deleted, and for an imported comment' }),
    creator_name: str.nullable().openapi({ description: "the author's name (an imported comment's author there)" }),
    body: str,
    score: int,
    created_at: str,
    updated_at: str,
    is_deleted: z.literal(false),
    is_sticky: z.literal(false),
    do_not_bump_post: z.literal(false),
  })
  .strict()
  .openapi('BooruComment', { description: "a post's comment (docs/decisions.md §22)" });

export const BooruNote = z
  .object({
    id: int,
    post_id: int,
    x: int,
    y: int,
    width: int,
    height: int,
    body: str,
    is_active: z.literal(true),
    version: int,
    created_at: str,
    updated_at: str,
  })
  .strict()
  .openapi('BooruNote', { description: 'a note over the image, in image pixels (docs/decisions.md §23)' });

export const BooruWikiPage = z
  .object({
    id: int,
    title: str,
    body: str,
    other_names: z.array(str),
    is_locked: z.boolean(),
    is_deleted: z.literal(false),
    created_at: str,
    updated_at: str,
  })
  .strict()
  .openapi('BooruWikiPage');

// Danbooru's only=: each post as the named fields alone (docs/decisions.md §23)
export const BooruPostFields = BooruPost.partial()
  .extend({
    notes: z.array(BooruNote).optional(),
    children: z.array(BooruPost).optional(),
    parent: z.union([BooruPost, z.null()]).optional(),
    uploader: z.object({ id: int, name: str }).strict().nullable().optional(),
    artist_commentary: z.null().optional(),
  })
  .strict()
  .openapi('BooruPostFields', { description: 'a post reduced to the fields `only` names' });
export const BooruTag = z
  .object({
    id: int,
    name: str,
    post_count: int,
    category: int.openapi({ description: '0 general, 1 artist, 3 copyright, 4 character, 5 meta' }),
  })
  .strict()
  .openapi('BooruTag');

export const BooruPool = z
  .object({
    id: int,
    name: str.openapi({ description: 'spaces shown as _' }),
    description: str,
    post_ids: z.array(int).openapi({ description: "post numbers in the pool's order" }),
    post_count: int,
    category: z.literal('series'),
    is_active: z.literal(true),
    is_deleted: z.literal(false),
    created_at: str,
    updated_at: str,
  })
  .strict()
  .openapi('BooruPool');

export type BooruPost = z.infer<typeof BooruPost>;
export type BooruNote = z.infer<typeof BooruNote>;
export type BooruComment = z.infer<typeof BooruComment>;
export type BooruWikiPage = z.infer<typeof BooruWikiPage>;
export type BooruTag = z.infer<typeof BooruTag>;
export type BooruPool = z.infer<typeof BooruPool>;
