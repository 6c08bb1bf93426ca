/**
 * The one place that turns a post into each shape the outside sees (the shapes themselves are
 * declared once, as zod schemas, in ./shapes.ts): the API's Post, the 409
 * near-duplicate match, the /image/search item, the /api/post/similar item and the post in webhook
 * payloads. A field every shape carries (a URL, the rating's spelling) is thus built the same way
 * everywhere, and a new shape is added here beside the others.
 */
import type { Transform } from '../hashing/dihedral.ts';
import { sortedTags } from './diff.ts';
import { imageName, imageUrl, SMALL_THUMBNAIL, thumbnailUrl, thumbnailUrls } from './media-names.ts';
import type { ImageItemRow, PostRecord, Rating } from './post-record.ts';
import type { DuplicateMatchView, ImageSearchImage, PostView, RobustItem, SimilarItem } from './shapes.ts';

export type { DuplicateMatchView, ImageSearchImage, PostView, RobustItem, SimilarItem } from './shapes.ts';

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
    media: {
      kind: p.media.kind,
      mime: p.mime,
      width: p.width,
      height: p.height,
      bytes: p.media.bytes,
      duration: p.media.duration,
      frames: p.media.frames,
      hasAudio: p.media.hasAudio,
    },
  };
  if (p.aggr !== null) view.aggr = p.aggr;
  // Outbox rows written before docs/decisions.md §22 carry no origins.
  const origin = p.origins?.[0];
  if (origin) view.origin = { ...origin };
  return view;
}

export const toDuplicateMatch = (p: PostRecord, mediaUrl: string): DuplicateMatchView => ({
  image: imageName(p),
  imageURL: imageUrl(mediaUrl, p),
  id: p.id,
  imageHash: p.hash,
});

export const toImageSearchImage = (p: PostRecord, mediaUrl: string): ImageSearchImage =>
  imageSearchItem(
    {
      seq: p.seq,
      id: p.id,
      text: p.text,
      rating: p.rating,
      ext: p.ext,
      tagNames: p.tags.map((t) => t.name),
      ...(p.media.kind === 'image' ? {} : { media: { kind: p.media.kind, duration: p.media.duration } }),
    },
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
  ...(p.media && p.media.kind !== 'image' ? { media: { kind: p.media.kind, duration: p.media.duration } } : {}),
});

export function toSimilarItem(
  p: Pick<PostRecord, 'id' | 'ext'>,
  mediaUrl: string,
  diff: number,
  transform?: Transform,
): SimilarItem {
  const item: SimilarItem = { id: p.id, image: imageName(p), imageURL: imageUrl(mediaUrl, p), diff };
  return transform === undefined ? item : { ...item, transform };
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
