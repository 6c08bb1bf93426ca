/**
 * Thumbnail sizes and names. Each post's image gets WebP thumbnails bounded to these lengths on the
 * long side (never upscaled), stored next to it as `<id>.<size>.webp` and served from /media.
 * Changing the list needs `imgpost rethumb` so existing posts get the new sizes.
 */
export const THUMBNAIL_SIZES = [320, 1024] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** The size clients get where one small picture is wanted (/image/search's thumbnailUrl). */
export const SMALL_THUMBNAIL: ThumbnailSize = 320;

/** `<post id>.<size>.webp` */
export const thumbnailName = (postId: string, size: ThumbnailSize): string => `${postId}.${size}.webp`;
