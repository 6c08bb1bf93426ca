/**
 * Philomena boards such as Derpibooru (docs/decisions.md §22): the image JSON of its API as gallery-dl's
 * philomena extractor writes it. Tags are one list of names with spaces, a namespace naming the category
 * (`artist:`, `oc:`); the rating is one of the tags (safe, suggestive, questionable, explicit, the grimdark
 * ones).
 */
import type { Rating, TagCategory } from '../../kernel/post-record.ts';
import { firstSource, idOf, int, originDate, text, words, type ImportTag, type SourceFamily } from './base.ts';

/** The rating tags, by their meaning. */
export const PHILOMENA_RATINGS: Readonly<Record<string, Rating>> = {
  safe: 'none',
  suggestive: 'moderate',
  questionable: 'moderate',
  explicit: 'violent',
  'semi-grimdark': 'moderate',
  grimdark: 'violent',
  grotesque: 'violent',
};

/** A namespace's category; the tag keeps the name after it (`artist:foo` is the artist `foo`). */
const NAMESPACES: Readonly<Record<string, TagCategory>> = {
  artist: 'artist',
  editor: 'artist',
  photographer: 'artist',
  colorist: 'artist',
  prompter: 'artist',
  oc: 'character',
  comic: 'copyright',
  series: 'copyright',
  fanfic: 'copyright',
  spoiler: 'copyright',
};

export const philomena: SourceFamily = {
  name: 'philomena',
  sites: { derpibooru: 'https://derpibooru.org', ponybooru: 'https://ponybooru.org', furbooru: 'https://furbooru.org' },
  recognises: (m) => 'sha512_hash' in m || ('tag_ids' in m && 'representations' in m),
  read(m) {
    const id = idOf(m.id);
    if (id === null) throw new Error('the metadata has no post id');
    const tags: ImportTag[] = [];
    const ratings: string[] = [];
    for (const tag of words(Array.isArray(m.tags) ? m.tags : text(m.tags).split(', '))) {
      const t = tag.trim();
      if (t.toLowerCase() in PHILOMENA_RATINGS) {
        ratings.push(t.toLowerCase());
        continue;
      }
      const colon = t.indexOf(':');
      const space = colon > 0 ? t.slice(0, colon).toLowerCase() : '';
      if (space in NAMESPACES) tags.push({ name: t.slice(colon + 1), category: NAMESPACES[space] });
      else tags.push({ name: t, category: 'general' });
    }
    // The strongest rating tag: a post tagged safe and grimdark is grimdark.
    const order: Rating[] = ['none', 'moderate', 'violent'];
    const rating = ratings.map((r) => PHILOMENA_RATINGS[r]).sort((a, b) => order.indexOf(b) - order.indexOf(a))[0];
    return {
      id,
      uploader: text(m.uploader) || null,
      score: int(m.score),
      favCount: int(m.faves),
      tags,
      rating: rating ?? 'none',
      ratingGiven: ratings.join(',') || null,
      source: firstSource(m.source_urls ?? m.source_url),
      createdAt: originDate(m.created_at ?? m.first_seen_at),
      parent: null,
      pools: [],
      comments: [],
      md5: null,
    };
  },
  postPath: (id) => `/images/${id}`,
  known: new Set(
    `id created_at updated_at first_seen_at uploader uploader_id tags tag_ids tag_count source_url source_urls format
    mime_type name orig_sha512_hash sha512_hash orig_size size width height aspect_ratio score upvotes downvotes faves
    wilson_score comment_count description representations view_url thumbnails_generated processed hidden_from_users
    deletion_reason duplicate_of spoilered animated duration intensities`.split(/\s+/),
  ),
};
