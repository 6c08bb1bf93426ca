import { imageName, imageUrl, thumbnailUrls } from '../kernel/media-names.ts';
import type { PostRecord } from '../kernel/post-record.ts';

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
  tags: { id: number; name: string }[];
  /** WebP thumbnails by long-side size: `{ "320": url, "1024": url }` */
  thumbnails: ReturnType<typeof thumbnailUrls>;
  aggr?: number;
}

export function toPostView(p: PostRecord, mediaUrl: string): PostView {
  const image = imageName(p);
  const view: PostView = {
    id: p.id,
    text: p.text,
    rating: p.rating,
    image,
    imageURL: imageUrl(mediaUrl, p),
    imageHash: p.hash,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    uploaderId: p.uploaderId,
    uploader: p.uploaderId !== null && p.uploaderName !== null ? { id: p.uploaderId, name: p.uploaderName } : null,
    tags: p.tags,
    thumbnails: thumbnailUrls(mediaUrl, p.id),
  };
  if (p.aggr !== null) view.aggr = p.aggr;
  return view;
}
