import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { DirectUploads } from '../posts/direct-upload/direct-uploads.ts';
import { UploadGrantRepository } from '../posts/direct-upload/grant-repository.ts';
import { bodyCapFor } from '../http/body.ts';
import { MediaRedirect } from '../media/redirect.ts';
import type { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import type { PostParts } from './post-parts.ts';

/**
 * The clients' own ways to the media store, past the server: uploads put to a presigned URL, and
 * media read from one. Both need a bucket; on local files the grants refuse and there is no redirect.
 */

/** Presigned uploads (their grants, and the limits an upload through the server has too). */
export function wireDirectUploads(config: Config, log: Logger, posts: PostParts, images: ImageStore): DirectUploads {
  return new DirectUploads({
    store: images.store,
    grants: new UploadGrantRepository(posts.db),
    tmpDir: images.tmpDir,
    log,
    settings: {
      expiresInS: config.directUploadExpiresS,
      maxImageBytes: config.maxImageBytes,
      maxBodyBytes: bodyCapFor(config.maxImageBytes),
      // docs/decisions.md §21: videos put straight to the bucket too
      video: { maxBytes: config.video.maxVideoBytes, maxBodyBytes: bodyCapFor(config.video.maxVideoBytes) },
    },
  });
}

/** GET /media's redirect to a presigned URL, when MEDIA_REDIRECT asks for one; else undefined. */
export function wireMediaRedirect(
  config: Config,
  posts: PostParts,
  images: ImageStore,
  thumbnailer: Thumbnailer,
): MediaRedirect | undefined {
  return config.mediaRedirect.mode === 'presigned'
    ? new MediaRedirect({
        stores: images.stores,
        posts: posts.postRepository,
        thumbnails: posts.thumbnailQueue,
        thumbnailer,
        expiresS: config.mediaRedirect.expiresS,
      })
    : undefined;
}
