/**
 * e621 and e926 (docs/decisions.md §22): their post JSON as gallery-dl's e621 extractor writes it: `tags`
 * made one list, `tags_<category>` beside it (species, lore, invalid and contributor among them), `file`,
 * `score` and `relationships` objects, `sources` a list, and `pools` ids or (its `metadata` option) objects.
 */
import type { Rating, TagCategory } from '../../kernel/post-record.ts';
import {
  firstSource,
  idOf,
  int,
  isObject,
  originDate,
  tagsByCategory,
  text,
  words,
  type ImportPool,
  type SourceFamily,
} from './base.ts';

/** e621's letters: `s` is "safe" there. */
export const E621_RATINGS: Readonly<Record<string, Rating>> = { s: 'none', q: 'moderate', e: 'violent' };

const category = (c: string): TagCategory =>
  c === 'artist' || c === 'contributor'
    ? 'artist'
    : c === 'copyright'
      ? 'copyright'
      : c === 'character'
        ? 'character'
        : c === 'meta'
          ? 'meta'
          : 'general';

export const e621: SourceFamily = {
  name: 'e621',
  sites: { e621: 'https://e621.net', e926: 'https://e926.net', e6ai: 'https://e6ai.net' },
  recognises: (m) => isObject(m.relationships) && isObject(m.file),
  read(m) {
    const id = idOf(m.id);
    if (id === null) throw new Error('the metadata has no post id');
    const rel = isObject(m.relationships) ? m.relationships : {};
    const file = isObject(m.file) ? m.file : {};
    const score = isObject(m.score) ? m.score.total : m.score;
    const given = text(m.rating).toLowerCase() || null;
    // Tags as the site's object when the metadata kept it (read without gallery-dl), else gallery-dl's fields.
    const byCategory = isObject(m.tags)
      ? Object.fromEntries(Object.entries(m.tags).map(([k, v]) => [`tags_${k}`, v]))
      : m;
    const pools: ImportPool[] = (Array.isArray(m.pools) ? m.pools : []).flatMap((p): ImportPool[] => {
      if (!isObject(p)) return idOf(p) ? [{ id: idOf(p)!, name: `pool ${idOf(p)}`, position: null }] : [];
      const ids = Array.isArray(p.post_ids) ? p.post_ids.map(String) : [];
      const at = ids.indexOf(id);
      return idOf(p.id)
        ? [{ id: idOf(p.id)!, name: text(p.name) || `pool ${idOf(p.id)}`, position: at < 0 ? null : at + 1 }]
        : [];
    });
    return {
      id,
      uploader: text(m.uploader_name) || null,
      score: int(score),
      favCount: int(m.fav_count),
      tags: tagsByCategory(byCategory, isObject(m.tags) ? [] : words(m.tags), category),
      rating: (given && E621_RATINGS[given[0]]) || 'none',
      ratingGiven: given,
      source: firstSource(m.sources ?? m.source),
      createdAt: originDate(m.created_at ?? m.date),
      parent: idOf(rel.parent_id),
      pools,
      comments: [],
      md5: text(file.md5) || null,
    };
  },
  postPath: (id) => `/posts/${id}`,
  known: new Set(
    `id created_at updated_at file preview sample score tags locked_tags change_seq flags rating fav_count sources
    pools relationships approver_id uploader_id uploader_name description comment_count is_favorited has_notes duration
    notes tags_general tags_artist tags_contributor tags_copyright tags_character tags_species tags_invalid tags_meta
    tags_lore`.split(/\s+/),
  ),
};
