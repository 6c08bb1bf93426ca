/**
 * The one place that turns a post into each shape the outside sees: the API's Post, the 409
 * near-duplicate match, the /image/search item, the /api/post/similar item and the post in webhook
 * payloads. A field every shape carries (a URL, the rating's spelling) is thus built the same way
 * everywhere, and a new shape is added here beside the others.
 */
import type { Transform } from '../hashing/dihedral.ts';
import { sortedTags } from './diff.ts';
import {
  imageName,
  imageUrl,
  SMALL_THUMBNAIL,
  thumbnailUrl,
  thumbnailUrls,
  type ThumbnailSize,
} from './media-names.ts';
import type { ImageItemRow, PostRecord, Rating } from './post-record.ts';

/** The spec's Post (§2), as every endpoint returns it. `uploader` may be replaced by Self on create. */
export interface PostView {
  id: string;
  text: string;
  rating: PostRecord['rating'];
  image: string;
  imageURL: string;
  imageHash: string;
  createdAt: string;
  updatedAt: string;
  uploaderId: number | null;
  uploader: { id: number; name: string } | Record<string, unknown> | null;
  /** by category (artist, copyright, character, general, meta), then name (docs/decisions.md §19) */
  tags: { id: number; name: string; category: PostRecord['tags'][number]['category'] }[];
  /** WebP thumbnails by long-side size: `{ "320": url, "1024": url }` */
  thumbnails: Record<`${ThumbnailSize}`, string>;
  /** how many accounts favorited it (docs/decisions.md §14) */
  favorites: number;
  /** docs/decisions.md §18: upvotes - downvotes, the votes, and how many comments */
  score: number;
  upvotes: number;
  downvotes: number;
  comments: number;
  /** where the picture came from, '' when unknown; the parent post's UUID or null (docs/decisions.md §19) */
  source: string;
  parentId: string | null;
  aggr?: number;
}

export function toPostView(p: PostRecord, mediaUrl: string): PostView {
  const view: PostView = {
    id: p.id,
    text: p.text,
    rating: p.rating,
    image: imageName(p),
    imageURL: imageUrl(mediaUrl, p),
    imageHash: p.hash,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    uploaderId: p.uploaderId,
    uploader: p.uploaderId !== null && p.uploaderName !== null ? { id: p.uploaderId, name: p.uploaderName } : null,
    tags: p.tags,
    thumbnails: thumbnailUrls(mediaUrl, p.id),
    favorites: p.favorites,
    score: p.upvotes - p.downvotes,
    upvotes: p.upvotes,
    downvotes: p.downvotes,
    comments: p.comments,
    source: p.source,
    parentId: p.parentId,
  };
  if (p.aggr !== null) view.aggr = p.aggr;
  return view;
}

/** One entry of the 409 body of an upload that has near-duplicates (docs/decisions.md §4). */
export interface DuplicateMatchView {
  image: string;
  imageURL: string;
  id: string;
  imageHash: string;
}

export const toDuplicateMatch = (p: PostRecord, mediaUrl: string): DuplicateMatchView => ({
  image: imageName(p),
  imageURL: imageUrl(mediaUrl, p),
  id: p.id,
  imageHash: p.hash,
});

/** One image of `/image/search` (docs/decisions.md §7): the post number as `id`, tag names only. */
export interface ImageSearchImage {
  text: string;
  rating: string;
  id: number;
  imageUrl: string;
  /** the 320 px WebP thumbnail */
  thumbnailUrl: string;
  tags: string[];
}

export const toImageSearchImage = (p: PostRecord, mediaUrl: string): ImageSearchImage =>
  imageSearchItem(
    { seq: p.seq, id: p.id, text: p.text, rating: p.rating, ext: p.ext, tagNames: p.tags.map((t) => t.name) },
    mediaUrl,
  );

/** The same item from the few columns it shows (PostRepository.imageItemsBySeq). */
export const imageSearchItem = (p: ImageItemRow, mediaUrl: string): ImageSearchImage => ({
  text: p.text,
  rating: p.rating,
  id: p.seq,
  imageUrl: imageUrl(mediaUrl, p),
  thumbnailUrl: thumbnailUrl(mediaUrl, p.id, SMALL_THUMBNAIL),
  tags: p.tagNames,
});

/**
 * One match of `/api/post/similar` (docs/decisions.md §5): `transform` only when mirrored and rotated copies were asked
 * for.
 */
export interface SimilarItem {
  id: string;
  image: string;
  imageURL: string;
  diff: number;
  transform?: Transform;
}

export function toSimilarItem(
  p: Pick<PostRecord, 'id' | 'ext'>,
  mediaUrl: string,
  diff: number,
  transform?: Transform,
): SimilarItem {
  const item: SimilarItem = { id: p.id, image: imageName(p), imageURL: imageUrl(mediaUrl, p), diff };
  return transform === undefined ? item : { ...item, transform };
}

/** One robust match of `/api/post/similar?robust=1` (docs/decisions.md §16): `score` 0..1, `kind` what was detected. */
export interface RobustItem {
  id: string;
  image: string;
  imageURL: string;
  score: number;
  kind: 'similar' | 'crop' | 'border' | 'overlay';
}

export const toRobustItem = (
  p: Pick<PostRecord, 'id' | 'ext'>,
  mediaUrl: string,
  score: number,
  kind: RobustItem['kind'],
): RobustItem => ({
  id: p.id,
  image: imageName(p),
  imageURL: imageUrl(mediaUrl, p),
  score,
  kind,
});

/** The payload's spelling of the third rating (docs/decisions.md §8). */
export type PayloadRating = 'none' | 'moderate' | 'violet';
export const payloadRating = (r: Rating): PayloadRating => (r === 'violent' ? 'violet' : r);

/** What webhook payloads need of a post: the record's fields as an outbox row keeps them. */
export type WebhookPostFacts = Pick<
  PostRecord,
  'seq' | 'id' | 'ext' | 'text' | 'rating' | 'createdAt' | 'uploaderId' | 'uploaderName'
> & {
  tags: { name: string }[];
};

/**
 * The post in webhook payloads (docs/decisions.md §8), in the original Go service's field names; the
 * webhook feature adds the event's changes and the JSON spelling (src/webhooks/event-data.ts).
 */
export interface WebhookPost {
  ImageID: number;
  Text: string;
  Rating: PayloadRating;
  Tags: string[];
  ImageURL: string;
  CreatedAt: Date;
  Uploader: { id: number; name: string } | null;
}

export const toWebhookPost = (post: WebhookPostFacts, mediaUrl: string): WebhookPost => ({
  ImageID: post.seq,
  Text: post.text,
  Rating: payloadRating(post.rating),
  Tags: sortedTags(post.tags.map((t) => t.name)),
  ImageURL: imageUrl(mediaUrl, post),
  CreatedAt: new Date(post.createdAt),
  Uploader:
    post.uploaderId !== null && post.uploaderName !== null ? { id: post.uploaderId, name: post.uploaderName } : null,
});
