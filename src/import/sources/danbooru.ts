/**
 * Danbooru and the boards that speak its API (docs/decisions.md §22), imgpost among them (§20): the post
 * JSON of /posts.json as gallery-dl's danbooru extractor writes it, with `tag_string_<category>` (and,
 * from newer gallery-dl, `tags_<category>` and `num`), the pool it was mirrored from, and with its
 * `metadata` option the uploader.
 */
import type { Rating } from '../../kernel/post-record.ts';
import {
  firstSource,
  idOf,
  int,
  isObject,
  originDate,
  poolOf,
  tagsByCategory,
  text,
  words,
  type FamilyRead,
  type Meta,
  type SourceFamily,
} from './base.ts';

/** Danbooru's letters: `s` is "sensitive" there (between general and questionable). */
export const DANBOORU_RATINGS: Readonly<Record<string, Rating>> = {
  g: 'none',
  s: 'moderate',
  q: 'moderate',
  e: 'violent',
};

const CATEGORIES = ['general', 'artist', 'copyright', 'character', 'meta'] as const;

/** The post fields a Danbooru board sends that carry nothing an import keeps (counts, flags, file variants). */
const LEFT = `id created_at updated_at uploader_id approver_id score up_score down_score fav_count source md5 rating
  image_width image_height file_ext file_size file_url large_file_url preview_file_url tag_string tag_count
  tag_count_general tag_count_artist tag_count_copyright tag_count_character tag_count_meta parent_id has_children
  has_active_children has_visible_children has_large pool_string is_deleted is_pending is_flagged is_banned
  is_rating_locked is_note_locked is_status_locked last_comment_bumped_at last_commented_at last_noted_at pixiv_id
  bit_flags media_asset uploader children parent notes artist_commentary pool tags fav_string duration
  tag_string_general tag_string_artist tag_string_copyright tag_string_character tag_string_meta uploader_name
  tags_general tags_artist tags_copyright tags_character tags_meta comments`;

export function readDanbooruPost(meta: Meta, ratings: Readonly<Record<string, Rating>>): FamilyRead {
  const id = idOf(meta.id);
  if (id === null) throw new Error('the metadata has no post id');
  const fromStrings = Object.fromEntries(
    CATEGORIES.map((c) => [`tags_${c}`, meta[`tags_${c}`] ?? meta[`tag_string_${c}`]]),
  );
  const all = Array.isArray(meta.tags) ? words(meta.tags) : words(meta.tag_string);
  const given = text(meta.rating).toLowerCase() || null;
  const pool = poolOf(meta.pool, meta.pool_name, meta.num);
  const uploader = isObject(meta.uploader) ? text(meta.uploader.name) : text(meta.uploader_name);
  return {
    id,
    uploader: uploader || null,
    score: int(meta.score),
    favCount: int(meta.fav_count),
    tags: tagsByCategory(fromStrings, all),
    rating: (given && ratings[given[0]]) || 'none',
    ratingGiven: given,
    source: firstSource(meta.source),
    createdAt: originDate(meta.created_at ?? meta.date),
    parent: idOf(meta.parent_id),
    pools: pool ? [pool] : [],
    comments: Array.isArray(meta.comments) ? danbooruComments(meta.comments) : [],
    md5: text(meta.md5) || null,
  };
}

/** Danbooru's /comments.json items: `creator_name` on older boards, `creator.name` with `only=`. */
export function danbooruComments(list: unknown[]) {
  return list.filter(isObject).flatMap((c) => {
    const id = idOf(c.id);
    const body = text(c.body);
    if (id === null || body === '' || c.is_deleted === true) return [];
    const author = isObject(c.creator) ? text(c.creator.name) : text(c.creator_name);
    return [{ id, author: author || null, body, createdAt: originDate(c.created_at) ?? new Date().toISOString() }];
  });
}

export const danbooru: SourceFamily = {
  name: 'danbooru',
  sites: {
    danbooru: 'https://danbooru.donmai.us',
    atfbooru: 'https://booru.allthefallen.moe',
    aibooru: 'https://aibooru.online',
    booruvar: 'https://booru.borvar.art',
  },
  recognises: (m) => 'tag_string' in m && 'md5' in m && !('relationships' in m),
  read: (m) => readDanbooruPost(m, DANBOORU_RATINGS),
  postPath: (id) => `/posts/${id}`,
  known: new Set(LEFT.split(/\s+/)),
};
