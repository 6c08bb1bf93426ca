/**
 * Gelbooru and the Gelbooru 0.2 boards (docs/decisions.md §22): their API's post as gallery-dl's gelbooru
 * and gelbooru_v02 extractors write it: `tags` one string, `created_at` as `Sat Jan 01 12:00:00 +0000 2022`,
 * with its `tags` option `tags_<type>` (artist, character, copyright, general, metadata, deprecated), a
 * pool mirrored as `pool` (its id) and `pool_name`.
 */
import type { Rating } from '../../kernel/post-record.ts';
import {
  firstSource,
  idOf,
  int,
  originDate,
  poolOf,
  tagsByCategory,
  text,
  words,
  type FamilyRead,
  type Meta,
  type SourceFamily,
} from './base.ts';

/**
 * Gelbooru's ratings: the words of Gelbooru 0.2.5 (general, sensitive, questionable, explicit) and the
 * letters of the 0.2 boards, where `s` is "safe".
 */
export const GELBOORU_RATINGS: Readonly<Record<string, Rating>> = {
  general: 'none',
  safe: 'none',
  s: 'none',
  sensitive: 'moderate',
  questionable: 'moderate',
  q: 'moderate',
  explicit: 'violent',
  e: 'violent',
};

const GELBOORU_DATE = /^\w{3} \w{3} \d{1,2} \d\d:\d\d:\d\d [+-]\d{4} \d{4}$/;

function read(m: Meta): FamilyRead {
  const id = idOf(m.id);
  if (id === null) throw new Error('the metadata has no post id');
  const given = text(m.rating).toLowerCase() || null;
  const pool = poolOf(m.pool, m.pool_name, m.num);
  return {
    id,
    uploader: text(m.owner) || text(m.creator) || null,
    score: int(m.score),
    favCount: null,
    tags: tagsByCategory(m, words(m.tags)),
    rating: (given && GELBOORU_RATINGS[given]) || 'none',
    ratingGiven: given,
    source: firstSource(m.source),
    createdAt: originDate(m.created_at),
    parent: idOf(m.parent_id),
    pools: pool ? [pool] : [],
    comments: [],
    md5: text(m.md5) || null,
  };
}

const KNOWN =
  `id created_at change creator_id owner creator score width height md5 directory image rating source parent_id
  has_children has_notes has_comments preview_url preview_width preview_height sample_url sample_width sample_height
  sample file_url status post_locked title tags tags_artist tags_character tags_copyright tags_general tags_metadata
  tags_deprecated tags_tag pool pool_name notes favorite_id date_favorited`.split(/\s+/);

export const gelbooru: SourceFamily = {
  name: 'gelbooru',
  sites: { gelbooru: 'https://gelbooru.com' },
  recognises: (m) => typeof m.created_at === 'string' && GELBOORU_DATE.test(m.created_at) && 'title' in m,
  read,
  postPath: (id) => `/index.php?page=post&s=view&id=${id}`,
  known: new Set(KNOWN),
};

export const gelbooruV02: SourceFamily = {
  name: 'gelbooru_v02',
  sites: {
    rule34: 'https://rule34.xxx',
    safebooru: 'https://safebooru.org',
    tbib: 'https://tbib.org',
    hypnohub: 'https://hypnohub.net',
    xbooru: 'https://xbooru.com',
    realbooru: 'https://realbooru.com',
  },
  recognises: (m) => typeof m.created_at === 'string' && GELBOORU_DATE.test(m.created_at),
  read,
  postPath: (id) => `/index.php?page=post&s=view&id=${id}`,
  known: new Set(KNOWN),
};
