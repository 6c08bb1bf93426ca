import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/sqlite.ts';
import { createHashPool, type HashPool } from '../hashing/pool.ts';
import type { Logger } from '../log.ts';
import { ImageStore } from '../media/store/image-store.ts';
import { postChangesOn, type PostChanges } from '../kernel/commit.ts';
import { Outbox } from '../kernel/outbox.ts';
import { OutboxRelay } from '../outbox/relay.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import { closeCore, openCore, openSearch, type Core, type SearchParts } from './wiring.ts';
import { UserRepository } from '../accounts/user-repository.ts';

/**
 * The job role (decisions §13): what a CLI command wires. Each opens only what its command
 * needs; none takes the DATA_DIR lock, runs start-up recovery (it would delete a live server's
 * uploads in flight) or starts a background loop, so every job is safe beside a running server.
 * Changes a job makes reach the index at once (relay.applyNow) or, failing that, through the
 * server's relay; its webhook deliveries are sent by the server's dispatcher.
 */

/** verify, reindex: SQLite and the search index. */
export interface IndexJob extends SearchParts {
  config: Config;
  log: Logger;
  db: Db;
  postRepository: PostRepository;
  outbox: Outbox;
  /** verify --repair commits through it */
  changes: PostChanges;
  relay: OutboxRelay;
  close(): Promise<void>;
}

export async function openIndexJob(config: Config, log: Logger): Promise<IndexJob> {
  const search = await openSearch(config, log);
  const db = openDatabase(config.dataDir);
  const users = new UserRepository(db);
  const postRepository = new PostRepository(db, users);
  const outbox = new Outbox(db);
  return {
    config,
    log,
    db,
    ...search,
    postRepository,
    outbox,
    changes: postChangesOn(db, users),
    relay: new OutboxRelay(outbox, postRepository, search.postsIndex, log),
    async close() {
      await search.es.close();
      db.close();
    },
  };
}

/** rethumb: SQLite, the image files and the worker pool; no Elasticsearch. */
export interface FilesJob {
  db: Db;
  posts: PostRepository;
  images: ImageStore;
  hashPool: HashPool;
  thumbnailer: Thumbnailer;
  close(): Promise<void>;
}

export function openFilesJob(config: Config, log: Logger): FilesJob {
  const db = openDatabase(config.dataDir);
  const posts = new PostRepository(db, new UserRepository(db));
  const images = new ImageStore(config.dataDir, db, posts);
  const hashPool = createHashPool({ workers: config.hashWorkers });
  const thumbnailer = new Thumbnailer({ images, hashPool, queue: new ThumbnailQueue(db), posts, log });
  return {
    db,
    posts,
    images,
    hashPool,
    thumbnailer,
    async close() {
      await hashPool.destroy();
      db.close();
    },
  };
}

/** import, and tools such as the benchmarks: every service, none of the server's loops. */
export interface ToolJob extends Core {
  close(): Promise<void>;
}

export async function openToolJob(config: Config, log: Logger): Promise<ToolJob> {
  const core = await openCore(config, log);
  return { ...core, close: () => closeCore(core) };
}
