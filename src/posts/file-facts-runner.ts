/**
 * Fills in the stored file's MD5 and size (docs/decisions.md §20) of posts from before migration 020
 * (uploads compute them before their insert), `posts.md5 IS NULL` its cursor (src/util/cursor-backfill.ts).
 * A file that is really gone (seeded posts have none) is recorded as the empty MD5 (shown as null); a
 * store that does not answer is retried later. MD5 and size are no part of the post record (no version,
 * no index change).
 */
import type { PostRepository } from '../kernel/post-repository.ts';
import { imageName } from '../kernel/media-names.ts';
import type { Logger } from '../log.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import { CursorBackfill } from '../util/cursor-backfill.ts';
import { fileMd5 } from '../util/file-md5.ts';

type Pending = ReturnType<PostRepository['files']['missing']>[number];

export class FileFactsRunner extends CursorBackfill<Pending> {
  readonly stats = { stored: 0, missing: 0 };

  constructor(private readonly deps: { posts: PostRepository; images: ImageStore; log: Logger }) {
    super({ name: 'file facts backfill', batch: 100, log: deps.log });
  }

  protected pending(after: number, limit: number): Pending[] {
    return this.deps.posts.files.missing(after, limit);
  }

  protected async visit(p: Pending): Promise<void> {
    const { posts, images } = this.deps;
    const image = imageName(p);
    try {
      const facts = await images.withLocalFile(image, (file) => fileMd5(file));
      if (posts.files.set(p.seq, facts.md5, facts.size)) this.stats.stored++;
    } catch (err) {
      if (await images.exists(image).catch(() => true)) {
        // The store did not answer: passed over until the next poll.
        this.deps.log.warn('file facts backfill: passing over a post', { postId: p.id, err: (err as Error).message });
      } else if (posts.files.set(p.seq, '', 0)) this.stats.missing++;
    }
  }
}
