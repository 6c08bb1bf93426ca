import { imageUrl, SMALL_THUMBNAIL, thumbnailUrl } from '../kernel/media-names.ts';
import type { PostRecord, Rating } from '../kernel/post-record.ts';

/** docs/decisions.md §20: none is g, moderate is q, violent is e. */
export const BOORU_RATING: Record<Rating, 'g' | 'q' | 'e'> = { none: 'g', moderate: 'q', violent: 'e' };

/** What a post record does not carry but a Danbooru post shows. */
export interface BooruExtras {
  md5: string | null;
  fileSize: number | null;
}

/** Danbooru's times: ISO 8601 with an offset (ours are UTC). */
export const booruTime = (iso: string): string => iso.replace(/Z$/, '+00:00');

/** A post as Danbooru's `/posts.json` shows it, with our values (docs/decisions.md §20). */
export function toBooruPost(p: PostRecord, extras: BooruExtras, mediaUrl: string) {
  const names = p.tags.map((t) => t.name);
  const file = imageUrl(mediaUrl, p);
  return {
    id: p.seq,
    created_at: booruTime(p.createdAt),
    updated_at: booruTime(p.updatedAt),
    uploader_id: p.uploaderId,
    score: 0,
    up_score: 0,
    down_score: 0,
    fav_count: p.favorites,
    source: '',
    md5: extras.md5,
    rating: BOORU_RATING[p.rating],
    image_width: p.width,
    image_height: p.height,
    file_ext: p.ext,
    file_size: extras.fileSize,
    file_url: file,
    // The stored file is the largest form there is; the 320 px thumbnail is the preview.
    large_file_url: file,
    preview_file_url: thumbnailUrl(mediaUrl, p.id, SMALL_THUMBNAIL),
    tag_string: names.join(' '),
    tag_string_general: names.join(' '),
    tag_string_artist: '',
    tag_string_copyright: '',
    tag_string_character: '',
    tag_string_meta: '',
    tag_count: names.length,
    tag_count_general: names.length,
    tag_count_artist: 0,
    tag_count_copyright: 0,
    tag_count_character: 0,
    tag_count_meta: 0,
    parent_id: null as number | null,
    has_children: false,
    pool_string: '',
    is_deleted: false,
    is_pending: false,
    is_flagged: false,
    is_banned: false,
  };
}
export type BooruPost = ReturnType<typeof toBooruPost>;
