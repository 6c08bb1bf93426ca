/**
 * Shimmie2 boards (docs/decisions.md §22): what gallery-dl's shimmie2 extractor reads from their pages:
 * `tags` one string (a namespace such as `artist:` naming a category, as Shimmie2's tag categories do),
 * `md5`, `file_url`, `width`, `height`, `size`. No date, rating or uploader: they are given where a board's
 * metadata has them (`rating` in Shimmie2's letters, where `s` is "safe").
 */
import type { Rating } from '../../kernel/post-record.ts';
import {
  categoryNamed,
  firstSource,
  idOf,
  originDate,
  text,
  words,
  type ImportTag,
  type SourceFamily,
} from './base.ts';

export const SHIMMIE2_RATINGS: Readonly<Record<string, Rating>> = {
  s: 'none',
  q: 'moderate',
  e: 'violent',
  '?': 'none',
};

export const shimmie2: SourceFamily = {
  name: 'shimmie2',
  sites: {
    cavemanon: 'https://booru.cavemanon.xyz',
    rule34hentai: 'https://rule34hentai.net',
    vidyapics: 'https://vidya.pics',
    nozrip: 'https://noz.rip/booru',
    soybooru: 'https://soybooru.com',
  },
  recognises: (m) => typeof m.tags === 'string' && 'md5' in m && 'file_url' in m && !('created_at' in m),
  read(m) {
    const id = idOf(m.id);
    if (id === null) throw new Error('the metadata has no post id');
    const tags: ImportTag[] = words(m.tags).map((t) => {
      const colon = t.indexOf(':');
      const category = colon > 0 ? categoryNamed(t.slice(0, colon)) : 'general';
      return category === 'general' ? { name: t, category } : { name: t.slice(colon + 1), category };
    });
    const given = text(m.rating).toLowerCase() || null;
    return {
      id,
      uploader: text(m.owner) || text(m.uploader) || null,
      score: null,
      favCount: null,
      tags,
      rating: (given && SHIMMIE2_RATINGS[given[0]]) || 'none',
      ratingGiven: given,
      source: firstSource(m.source),
      createdAt: originDate(m.posted ?? m.date),
      parent: idOf(m.parent_id),
      pools: [],
      comments: [],
      md5: text(m.md5) || null,
    };
  },
  postPath: (id) => `/post/view/${id}`,
  known: new Set(
    'id md5 file_url width height size tags rating source owner uploader posted parent_id mime'.split(' '),
  ),
};
