import type { Config } from '../config.ts';
import type { Db } from '../db/sqlite.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { createHashPool } from '../hashing/pool.ts';
import { createLogger, type Logger } from '../log.ts';
import { ImageStore } from '../media/store/image-store.ts';
import { Outbox } from '../kernel/outbox.ts';
import { OutboxRelay } from '../outbox/relay.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import type { Progress } from '../util/progress.ts';
import { reindex, type ReindexResult } from '../search/reindex.ts';
import { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import { rethumb, type RethumbResult } from '../thumbnails/rethumb.ts';
import { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import { RestoreRefused } from './restore.ts';
import { UserRepository } from '../accounts/user-repository.ts';

/** What restore does once the files are in place: the search index, then thumbnails not made yet. */

export async function rebuildIndex(db: Db, postsIndex: PostsIndex, log: Logger, progress: (total: number) => Progress): Promise<ReindexResult> {
  const posts = new PostRepository(db, new UserRepository(db));
  const outbox = new Outbox(db);
  try {
    // Nothing else writes this DATA_DIR (restore holds its lock): no running relays to wait for.
    return await reindex({ postsIndex, postRepository: posts, outbox, relay: new OutboxRelay(outbox, posts, postsIndex, log), log }, { settleMs: 0, graceMs: 0, retireMs: 0, progress });
  } catch (err) {
    throw new RestoreRefused(`the data is restored, but rebuilding the index failed (${(err as Error).message}); run \`imgpost reindex\` before starting the server`);
  }
}

/** Thumbnails the backup lacked (not made yet when it ran), made from the restored images. */
export async function makeMissingThumbnails(db: Db, config: Config, progress: (total: number) => Progress): Promise<RethumbResult> {
  const hashPool = createHashPool({ workers: config.hashWorkers });
  const posts = new PostRepository(db, new UserRepository(db));
  const images = new ImageStore(config.dataDir, db, posts);
  // Also marks the restored thumbnail jobs done, so the server does not make them again.
  const thumbnailer = new Thumbnailer({ images, hashPool, posts, queue: new ThumbnailQueue(db), log: createLogger('warn') });
  try {
    return await rethumb({ posts, images, thumbnailer }, { missingOnly: true, concurrency: config.hashWorkers, progress });
  } finally {
    await hashPool.destroy();
  }
}
