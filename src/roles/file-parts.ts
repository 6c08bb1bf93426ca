import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { createHashPool, type HashPool } from '../hashing/pool.ts';
import { ImageStore } from '../media-store/image-store.ts';
import { Thumbnailer, type ThumbnailerDeps } from '../thumbnails/thumbnailer.ts';
import { DescriptorRunner } from '../thumbnails/descriptor-runner.ts';
import { UploadWork } from '../thumbnails/with-upload.ts';
import { wireMediaStores } from './media-stores.ts';
import { wirePosters } from './video-parts.ts';
import type { PostParts } from './post-parts.ts';

/** The image files and the worker pool. */
export interface ImageParts {
  images: ImageStore;
  hashPool: HashPool;
}

/** The image files, the worker pool and the thumbnail maker. */
export interface FileParts extends ImageParts {
  thumbnailer: Thumbnailer;
}

/** The image files alone (no worker pool); close with `images.stores.close()`. */
export const wireImageStore = (config: Config, log: Logger, posts: PostParts): ImageStore =>
  new ImageStore(wireMediaStores(config, log, posts.db), config.dataDir, posts.db, posts.postRepository);

/**
 * `serving`: the server's limits (a bounded analysis queue, so uploads get 503 rather than waiting)
 * and its idle workers let go. A job has none of them: it keeps its workers busy until it ends.
 */
export function wireImages(config: Config, log: Logger, posts: PostParts, serving: boolean): ImageParts {
  const images = wireImageStore(config, log, posts);
  const hashPool = createHashPool({
    workers: config.hashWorkers,
    ...(serving ? { maxQueue: config.hashQueueLimit, idleMs: config.hashWorkerIdleMs } : {}),
  });
  return { images, hashPool };
}

/**
 * The thumbnail maker for posts whose upload did not make them (imports, posts acknowledged before a
 * crash). `serving`: made on all workers but one, which stays free for uploads. `descriptors`: such
 * posts' robust descriptors come with their thumbnails (one decode).
 */
export function wireThumbnailer(
  config: Config,
  log: Logger,
  posts: PostParts,
  files: ImageParts,
  serving: boolean,
  descriptors?: ThumbnailerDeps['descriptors'],
): Thumbnailer {
  return new Thumbnailer({
    ...files,
    posters: wirePosters(config, posts, { hashPool: files.hashPool, tmpDir: files.images.tmpDir }),
    queue: posts.thumbnailQueue,
    posts: posts.postRepository,
    log,
    ...(serving ? { parallel: config.hashWorkers - 1 } : {}),
    descriptors,
  });
}

/** The image files, the worker pool and the thumbnail maker, for jobs. */
export function wireFiles(config: Config, log: Logger, posts: PostParts): FileParts {
  const files = wireImages(config, log, posts, false);
  return { ...files, thumbnailer: wireThumbnailer(config, log, posts, files, false) };
}

/**
 * The image work an upload does before its answer (docs/decisions.md §4): its thumbnails (unless
 * BACKGROUND_THUMBNAILS=0 leaves them queued) and its robust descriptor.
 */
export const wireUploadWork = (config: Config, files: ImageParts): UploadWork =>
  new UploadWork({
    hashPool: files.hashPool,
    tmpDir: files.images.tmpDir,
    thumbnails: config.backgroundThumbnails,
    descriptor: config.robustDescriptors.enabled,
  });

/** Robust descriptors after uploads and for older posts (docs/decisions.md §16). */
export function wireDescriptors(config: Config, log: Logger, posts: PostParts, files: ImageParts): DescriptorRunner {
  return new DescriptorRunner({
    posts: posts.postRepository,
    unitOfWork: posts.unitOfWork,
    images: files.images,
    hashPool: files.hashPool,
    log,
    pauseMs: config.robustDescriptors.pauseMs,
    // When a thumbnailer runs the queued jobs, it brings their descriptors (one decode).
    ...(config.robustDescriptors.enabled && config.backgroundThumbnails
      ? { thumbnailsWillRun: (id: string) => posts.thumbnailQueue.willRun(id) }
      : {}),
  });
}
