import { imageUrl, SMALL_THUMBNAIL, thumbnailUrl } from '../kernel/media-names.ts';
import type { Rating, TagCategory } from '../kernel/post-record.ts';
import type { LeanPost } from '../kernel/lean-post-rows.ts';
import type { BooruPost } from './schemas.ts';

/** docs/decisions.md §20: none is g, moderate is q, violent is e. */
export const BOORU_RATING: Record<Rating, 'g' | 'q' | 'e'> = { none: 'g', moderate: 'q', violent: 'e' };

/** Danbooru's category numbers (docs/decisions.md §20). */
export const BOORU_CATEGORY: Record<TagCategory, number> = {
  general: 0,
  artist: 1,
  copyright: 3,
  character: 4,
  meta: 5,
};

/** What a Danbooru post is made of: the kernel's lean read of a post (src/kernel/lean-post-rows.ts). */
export type BooruSource = LeanPost;

/** Danbooru's times: ISO 8601 with an offset (ours are UTC). */
export const booruTime = (iso: string): string => iso.replace(/Z$/, '+00:00');

/** A post as Danbooru's `/posts.json` shows it, with our values (docs/decisions.md §20). */
export function toBooruPost(p: BooruSource, mediaUrl: string): BooruPost {
  const names = p.tags.map((t) => t.name);
  const of = (c: TagCategory) => p.tags.filter((t) => t.category === c).map((t) => t.name);
  const [general, artist, copyright, character, stored] = (
    ['general', 'artist', 'copyright', 'character', 'meta'] as const
  ).map(of);
  // docs/decisions.md §21: Danbooru's own tags of a moving picture, computed, never stored
  const computed = [
    ...(p.mediaKind !== 'image' ? ['animated'] : []),
    ...(p.hasAudio ? ['sound'] : []),
    ...(p.mediaKind === 'video' ? ['video'] : []),
  ].filter((t) => !stored.includes(t));
  const meta = [...stored, ...computed].sort();
  names.push(...computed);
  const file = imageUrl(mediaUrl, p);
  return {
    id: p.seq,
    created_at: booruTime(p.createdAt),
    updated_at: booruTime(p.updatedAt),
    uploader_id: p.uploaderId,
    score: p.upvotes - p.downvotes,
    up_score: p.upvotes,
    down_score: p.downvotes,
    fav_count: p.favorites,
    source: p.source,
    // The empty MD5 marks a file the backfill found gone.
    md5: p.md5 || null,
    rating: BOORU_RATING[p.rating],
    image_width: p.width,
    image_height: p.height,
    file_ext: p.ext,
    file_size: p.md5 ? p.fileSize : null,
    file_url: file,
    // The stored file is the largest form there is; the 320 px thumbnail is the preview.
    large_file_url: file,
    preview_file_url: thumbnailUrl(mediaUrl, p.id, SMALL_THUMBNAIL),
    tag_string: names.join(' '),
    tag_string_general: general.join(' '),
    tag_string_artist: artist.join(' '),
    tag_string_copyright: copyright.join(' '),
    tag_string_character: character.join(' '),
    tag_string_meta: meta.join(' '),
    tag_count: names.length,
    tag_count_general: general.length,
    tag_count_artist: artist.length,
    tag_count_copyright: copyright.length,
    tag_count_character: character.length,
    tag_count_meta: meta.length,
    parent_id: p.parentSeq,
    has_children: p.hasChildren,
    last_noted_at: p.lastNotedAt === null ? null : booruTime(p.lastNotedAt),
    pool_string: p.pools.map((x) => `pool:${x.pool}`).join(' '),
    is_deleted: false,
    is_pending: false,
    is_flagged: false,
    is_banned: false,
    media_asset: {
      id: p.seq,
      md5: p.md5 || null,
      file_ext: p.ext,
      file_size: p.md5 ? p.fileSize : null,
      image_width: p.width,
      image_height: p.height,
      duration: p.duration,
    },
  };
}
