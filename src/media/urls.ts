import { imageName, type PostRecord } from '../posts/post-record.ts';
import { THUMBNAIL_SIZES, thumbnailName, type ThumbnailSize } from '../thumbnails/sizes.ts';

/**
 * The one builder of media URLs: every imageURL, thumbnail URL and webhook ImageURL comes from
 * here, under MEDIA_URL (which a CDN may serve).
 */
export const imageUrl = (mediaUrl: string, post: Pick<PostRecord, 'id' | 'ext'>): string => `${mediaUrl}/${imageName(post)}`;

export const thumbnailUrl = (mediaUrl: string, postId: string, size: ThumbnailSize): string => `${mediaUrl}/${thumbnailName(postId, size)}`;

/** `{ "320": url, "1024": url }` as posts carry it. */
export function thumbnailUrls(mediaUrl: string, postId: string): Record<`${ThumbnailSize}`, string> {
  return Object.fromEntries(THUMBNAIL_SIZES.map((size) => [String(size), thumbnailUrl(mediaUrl, postId, size)])) as Record<`${ThumbnailSize}`, string>;
}
