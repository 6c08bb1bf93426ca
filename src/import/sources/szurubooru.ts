/**
 * szurubooru (docs/decisions.md §22): its post resource as gallery-dl's szurubooru extractor writes it:
 * `tags` made a list of first names with `tags_<category>` beside it (a board names its own categories),
 * `safety`, `creationTime`, `user`, `comments`, `pools`. szurubooru relates posts without a parent.
 */
import type { Rating } from '../../kernel/post-record.ts';
import {
  firstSource,
  idOf,
  int,
  isObject,
  originDate,
  tagsByCategory,
  text,
  words,
  type SourceFamily,
} from './base.ts';

export const SZURUBOORU_RATINGS: Readonly<Record<string, Rating>> = {
  safe: 'none',
  sketchy: 'moderate',
  unsafe: 'violent',
};

export const szurubooru: SourceFamily = {
  name: 'szurubooru',
  sites: {
    bcbnsfw: 'https://booru.bcbnsfw.space',
    snootbooru: 'https://snootbooru.com',
    visuabusters: 'https://www.visuabusters.com/booru',
  },
  recognises: (m) => 'safety' in m && 'creationTime' in m,
  read(m) {
    const id = idOf(m.id);
    if (id === null) throw new Error('the metadata has no post id');
    const given = text(m.safety).toLowerCase() || null;
    // Read without gallery-dl, tags are the resource's objects: { names, category }.
    const all = (Array.isArray(m.tags) ? m.tags : []).flatMap((t) =>
      typeof t === 'string' ? [t] : isObject(t) && Array.isArray(t.names) ? [text(t.names[0])] : [],
    );
    const byCategory = { ...m };
    if (Array.isArray(m.tags) && m.tags.some(isObject))
      for (const t of m.tags.filter(isObject)) {
        const key = `tags_${text(t.category).split('_').pop()}`;
        byCategory[key] = [...words(byCategory[key]), text(Array.isArray(t.names) ? t.names[0] : '')];
      }
    return {
      id,
      uploader: isObject(m.user) ? text(m.user.name) || null : null,
      score: int(m.score),
      favCount: int(m.favoriteCount),
      tags: tagsByCategory(byCategory, all),
      rating: (given && SZURUBOORU_RATINGS[given]) || 'none',
      ratingGiven: given,
      source: firstSource(m.source),
      createdAt: originDate(m.creationTime ?? m.date),
      parent: null,
      pools: (Array.isArray(m.pools) ? m.pools : []).filter(isObject).flatMap((p) => {
        const pid = idOf(p.id);
        const name = Array.isArray(p.names) ? text(p.names[0]) : text(p.name);
        const posts = Array.isArray(p.posts) ? p.posts.map((x) => (isObject(x) ? idOf(x.id) : idOf(x))) : [];
        const at = posts.indexOf(id);
        return pid ? [{ id: pid, name: name || `pool ${pid}`, position: at < 0 ? null : at + 1 }] : [];
      }),
      comments: (Array.isArray(m.comments) ? m.comments : []).filter(isObject).flatMap((c) => {
        const cid = idOf(c.id);
        const body = text(c.text);
        if (cid === null || body === '') return [];
        const author = isObject(c.user) ? text(c.user.name) : '';
        return [
          { id: cid, author: author || null, body, createdAt: originDate(c.creationTime) ?? new Date().toISOString() },
        ];
      }),
      md5: text(m.checksumMD5) || null,
    };
  },
  postPath: (id) => `/post/${id}`,
  known: new Set(
    `id version creationTime lastEditTime safety source type mimeType checksum checksumMD5 fileSize canvasWidth
    canvasHeight contentUrl thumbnailUrl flags tags relations user score ownScore ownFavorite tagCount favoriteCount
    commentCount noteCount featureCount relationCount lastFeatureTime favoritedBy hasCustomThumbnail notes comments
    pools`.split(/\s+/),
  ),
};
