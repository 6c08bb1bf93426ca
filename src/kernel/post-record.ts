export interface Tag {
  id: number;
  name: string;
}

export const RATINGS = ['none', 'moderate', 'violent'] as const;
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
  /** sorted by name */
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
}

/** What an `/image/search` item shows of a post, read without building the record (PostRepository.imageItemsBySeq). */
export type ImageItemRow = Pick<PostRecord, 'seq' | 'id' | 'text' | 'rating' | 'ext'> & { tagNames: string[] };
