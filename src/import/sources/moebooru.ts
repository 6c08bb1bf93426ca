/**
 * Moebooru boards such as yande.re and Konachan (docs/decisions.md §22): /post.json's post as gallery-dl's
 * moebooru extractor writes it: `tags` one string, `created_at` a Unix time, `author` the uploader's name,
 * with its `tags` option `tags_<type>` (general, artist, copyright, character, circle, faults), a pool
 * mirrored as `pool` (its id, or the pool with its `metadata` option).
 */
import type { Rating, TagCategory } from '../../kernel/post-record.ts';
import {
  categoryNamed,
  firstSource,
  idOf,
  int,
  originDate,
  poolOf,
  tagsByCategory,
  text,
  words,
  type SourceFamily,
} from './base.ts';

/** Moebooru's letters: `s` is "safe" there. */
export const MOEBOORU_RATINGS: Readonly<Record<string, Rating>> = { s: 'none', q: 'moderate', e: 'violent' };

/** yande.re's circles are the artists' groups; faults and Konachan's style are about the picture. */
const category = (c: string): TagCategory => (c === 'style' ? 'meta' : categoryNamed(c));

export const moebooru: SourceFamily = {
  name: 'moebooru',
  sites: {
    yandere: 'https://yande.re',
    konachan: 'https://konachan.com',
    sakugabooru: 'https://www.sakugabooru.com',
    lolibooru: 'https://lolibooru.moe',
  },
  recognises: (m) =>
    typeof m.created_at === 'number' && typeof m.tags === 'string' && ('author' in m || 'creator_id' in m),
  read(m) {
    const id = idOf(m.id);
    if (id === null) throw new Error('the metadata has no post id');
    const given = text(m.rating).toLowerCase() || null;
    const pool = poolOf(m.pool, m.pool_name, m.num);
    return {
      id,
      uploader: text(m.author) || null,
      score: int(m.score),
      favCount: null,
      tags: tagsByCategory(m, words(m.tags), category),
      rating: (given && MOEBOORU_RATINGS[given[0]]) || 'none',
      ratingGiven: given,
      source: firstSource(m.source),
      createdAt: originDate(m.created_at),
      parent: idOf(m.parent_id),
      pools: pool ? [pool] : [],
      comments: [],
      md5: text(m.md5) || null,
    };
  },
  postPath: (id) => `/post/show/${id}`,
  known: new Set(
    `id tags created_at updated_at creator_id approver_id author change source score md5 file_size file_ext file_url
    is_shown_in_index preview_url preview_width preview_height actual_preview_width actual_preview_height sample_url
    sample_width sample_height sample_file_size jpeg_url jpeg_width jpeg_height jpeg_file_size rating is_rating_locked
    has_children parent_id status is_pending width height is_held frames_pending_string frames_pending frames_string
    frames is_note_locked last_noted_at last_commented_at flag_detail pool pool_name notes tags_general tags_artist
    tags_copyright tags_character tags_circle tags_faults tags_style`.split(/\s+/),
  ),
};
