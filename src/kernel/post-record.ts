/**
 * Tag categories (docs/decisions.md §19), in the order a post lists its tags; `general` is the default.
 */
export const TAG_CATEGORIES = ['artist', 'copyright', 'character', 'general', 'meta'] as const;
export type TagCategory = (typeof TAG_CATEGORIES)[number];

export interface Tag {
  id: number;
  name: string;
  category: TagCategory;
}

/** A post's place in one pool (docs/decisions.md §19): the pool's id and the post's position in its order. */
export interface PoolPlace {
  pool: number;
  position: number;
}

/**
 * Where an imported post came from (docs/decisions.md §22): the site (gallery-dl's category, or the host),
 * the post's id there, its address, and its uploader's name there (null when the site gave none).
 */
export interface PostOrigin {
  site: string;
  id: string;
  url: string;
  uploader: string | null;
}

/** The longest source a post may carry (docs/decisions.md §19). */
export const MAX_SOURCE = 2048;
/** Tag names are 1 to 64 characters (code points) without whitespace or control characters (docs/decisions.md §4). */
export const MAX_TAG_LENGTH = 64;

export const RATINGS = ['none', 'moderate', 'violent'] as const;

/** What a post's file is (docs/decisions.md §21): a still image, an animation or a video. */
export const MEDIA_KINDS = ['image', 'animation', 'video'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** A post's moving-picture facts, read from its bytes at upload (docs/decisions.md §21). */
export interface PostMedia {
  kind: MediaKind;
  /** seconds; null for a still image */
  duration: number | null;
  /** null for a still image, or where the container does not say */
  frames: number | null;
  hasAudio: boolean;
  /** the stored file's size; null while the file-facts backfill has not reached the post */
  bytes: number | null;
}
export type Rating = (typeof RATINGS)[number];

/** A post as SQLite holds it, with its tag names (sorted) and its uploader's name joined in. */
export interface PostRecord {
  seq: number;
  id: string;
  text: string;
  rating: Rating;
  ext: string;
  mime: string;
  width: number;
  height: number;
  hash: string;
  uploaderId: number | null;
  uploaderName: string | null;
  aggr: number | null;
  createdAt: string;
  updatedAt: string;
  version: number;
  /** by category (TAG_CATEGORIES' order), then name */
  tags: Tag[];
  /** how many accounts favorited it (docs/decisions.md §14; kept by SQLite triggers) */
  favorites: number;
  /** their user ids, ascending: the search document's `favorited_by`; never shown in a view */
  favoritedBy: number[];
  /** docs/decisions.md §18: votes up and down and comments (counts kept by SQLite triggers) */
  upvotes: number;
  downvotes: number;
  comments: number;
  /** the commenters' user ids, ascending: the search document's `commented_by`; never shown in a view */
  commentedBy: number[];
  /** where the picture came from; '' when unknown (docs/decisions.md §19) */
  source: string;
  /** the parent post's number and UUID, or null */
  parentSeq: number | null;
  parentId: string | null;
  /** the pools the post is in, by pool id (docs/decisions.md §19) */
  pools: PoolPlace[];
  /** docs/decisions.md §21 */
  media: PostMedia;
  /** where it was imported from, first import first; empty for a post uploaded here (docs/decisions.md §22) */
  origins: PostOrigin[];
  /** docs/decisions.md §23: how many notes it has and when the newest was written (kept by SQLite triggers) */
  notes: number;
  lastNotedAt: string | null;
}

/** What an `/image/search` item shows of a post, read without building the record (PostRepository.imageItemsBySeq). */
export type ImageItemRow = Pick<PostRecord, 'seq' | 'id' | 'text' | 'rating' | 'ext'> & {
  tagNames: string[];
  media?: Pick<PostMedia, 'kind' | 'duration'>;
};
