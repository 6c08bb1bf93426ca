import type { ImageStore } from '../media-store/image-store.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { Progress } from '../util/progress.ts';
import { imageName, THUMBNAIL_SIZES, thumbnailName } from '../kernel/media-names.ts';
import type { Thumbnailer } from './thumbnailer.ts';

export interface RethumbOptions {
  /** only posts with a thumbnail file missing (e.g. uploaded before thumbnails existed) */
  missingOnly: boolean;
  /** posts in flight at once; the pool's size is the natural choice */
  concurrency: number;
  progress: (total: number) => Progress;
}

export interface RethumbResult {
  posts: number;
  regenerated: number;
  /** already complete, with missingOnly */
  skipped: number;
  /** deleted while the command ran */
  gone: number;
  failed: { postId: string; reason: string }[];
}

export interface RethumbDeps {
  posts: PostRepository;
  images: ImageStore;
  thumbnailer: Pick<Thumbnailer, 'make'>;
}

/**
 * Regenerates every post's thumbnails from its stored image, in number order. Each post's new
 * files are written to the temp directory and moved in under the database's write lock (see
 * Thumbnailer.make and ImageStore.replaceThumbnails), so this can run beside a live server.
 */
export async function rethumb(deps: RethumbDeps, opts: RethumbOptions): Promise<RethumbResult> {
  // The posts there are when it starts: later uploads queue their own thumbnail jobs, and a job
  // chasing a live upload stream would never end.
  const lastSeq = deps.posts.lastSeq();
  const total = deps.posts.count();
  const progress = opts.progress(total);
  const result: RethumbResult = { posts: 0, regenerated: 0, skipped: 0, gone: 0, failed: [] };

  const one = async (post: PostRecord): Promise<void> => {
    const image = imageName(post);
    if (
      opts.missingOnly &&
      (await Promise.all(THUMBNAIL_SIZES.map((size) => deps.images.exists(thumbnailName(post.id, size))))).every(
        Boolean,
      )
    ) {
      result.skipped++;
      return;
    }
    try {
      if (!(await deps.images.exists(image))) throw new Error(`image file ${image} is missing`);
      if (await deps.thumbnailer.make(post.id, image, 'urgent')) result.regenerated++;
      else result.gone++;
    } catch (err) {
      // A post deleted under us loses its file first; that is not a failure.
      if (!deps.posts.getById(post.id)) result.gone++;
      else result.failed.push({ postId: post.id, reason: (err as Error).message });
    }
  };

  for (const page of deps.posts.batches(Math.max(50, opts.concurrency * 4))) {
    const batch = page.filter((p) => p.seq <= lastSeq);
    if (batch.length === 0) break;
    for (let i = 0; i < batch.length; i += opts.concurrency) {
      const slice = batch.slice(i, i + opts.concurrency);
      await Promise.all(slice.map(one));
      result.posts += slice.length;
      progress.update(result.posts, Math.max(total, result.posts));
    }
  }
  progress.done();
  return result;
}
