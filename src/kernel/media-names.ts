import { DESCRIPTOR_SOURCE } from '../robust/grey.ts';
import type { PostRecord } from './post-record.ts';

/**
 * Thumbnail sizes and names. Each post's image gets WebP thumbnails bounded to these lengths on the
 * long side (never upscaled), stored next to it as `<id>.<size>.webp` and served from /media.
 * Changing the list needs `imgpost rethumb` so existing posts get the new sizes. The small one is the
 * robust descriptor's source size (the thumbnails task decodes the picture once for both).
 */
export const THUMBNAIL_SIZES = [DESCRIPTOR_SOURCE, 1024] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** The size clients get where one small picture is wanted (/image/search's thumbnailUrl). */
export const SMALL_THUMBNAIL: ThumbnailSize = 320;

/** `<post id>.<size>.webp` */
export const thumbnailName = (postId: string, size: ThumbnailSize): string => `${postId}.${size}.webp`;

/** `<post id>.<ext>`: the original image's file name. */
export const imageName = (p: Pick<PostRecord, 'id' | 'ext'>): string => `${p.id}.${p.ext}`;

/**
 * The one builder of media URLs: every imageURL, thumbnail URL and webhook ImageURL comes from
 * here, under MEDIA_URL (which a CDN may serve).
 */
export const imageUrl = (mediaUrl: string, post: Pick<PostRecord, 'id' | 'ext'>): string =>
  `${mediaUrl}/${imageName(post)}`;

export const thumbnailUrl = (mediaUrl: string, postId: string, size: ThumbnailSize): string =>
  `${mediaUrl}/${thumbnailName(postId, size)}`;

/** `{ "320": url, "1024": url }` as posts carry it. */
export function thumbnailUrls(mediaUrl: string, postId: string): Record<`${ThumbnailSize}`, string> {
  return Object.fromEntries(
    THUMBNAIL_SIZES.map((size) => [String(size), thumbnailUrl(mediaUrl, postId, size)]),
  ) as Record<`${ThumbnailSize}`, string>;
}
