import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/sqlite.ts';
import { createEsClient, type EsClient } from '../elasticsearch/client.ts';
import { startManagedNode } from '../elasticsearch/managed-node.ts';
import { PostsIndex } from '../elasticsearch/posts-index.ts';
import type { Logger } from '../log.ts';
import { Outbox } from '../outbox/outbox.ts';
import { OutboxRelay } from '../outbox/relay.ts';
import { PostRepository } from '../posts/repository.ts';
import { AccountService } from '../accounts/service.ts';
import { loadSessionSecret, SessionSealer } from '../accounts/session-cookie.ts';
import { PostService } from '../posts/service.ts';
import { PostHistory } from '../posts/versions/history.ts';
import { VersionRepository } from '../posts/versions/repository.ts';
import { TagRepository } from '../tags/repository.ts';
import { TagService } from '../tags/service.ts';
import { ImageSearchService } from '../search/image-search/service.ts';
import { PostSearchService } from '../search/post-search/service.ts';
import { SimilarService } from '../search/similar/service.ts';
import { createHashPool, type HashPool } from '../hashing/pool.ts';
import { ImageStore } from '../media/image-store.ts';
import { ThumbnailQueue } from '../thumbnails/queue.ts';
import { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import type { Dispatcher } from '../webhooks/dispatcher.ts';
import { attachFanOut } from '../webhooks/fan-out.ts';
import { DispatcherThread } from '../webhooks/dispatcher-thread.ts';
import { WebhookRepository } from '../webhooks/repository.ts';
import { WebhookService } from '../webhooks/service.ts';

/**
 * The building blocks both roles wire from (src/roles/server.ts, src/roles/jobs.ts). Nothing here
 * starts a loop, takes the DATA_DIR lock or touches files it did not create: that is the server's.
 */

export async function resolveElasticsearchUrl(config: Config, log: Logger): Promise<string> {
  if (config.elasticsearch.url) return config.elasticsearch.url;
  const node = await startManagedNode({ log: (line) => log.info(line) });
  return node.url;
}

export interface SearchParts {
  es: EsClient;
  postsIndex: PostsIndex;
}

/**
 * The Elasticsearch client and the posts index, not yet prepared: restore must first check that
 * the index does not exist, which preparing it would make true.
 */
export async function connectSearch(config: Config, log: Logger): Promise<SearchParts> {
  const es = createEsClient({ ...config.elasticsearch, url: await resolveElasticsearchUrl(config, log) });
  return { es, postsIndex: new PostsIndex(es, config.elasticsearch.indexPrefix, config.elasticsearch.replicas) };
}

/** The Elasticsearch client and the posts index, prepared (or a warning when the cluster is down). */
export async function openSearch(config: Config, log: Logger): Promise<SearchParts> {
  const search = await connectSearch(config, log);
  try {
    await search.postsIndex.ensure();
  } catch (err) {
    // Still usable: writes queue in the outbox; readiness reports Elasticsearch down.
    log.warn('could not prepare the posts index yet', { err: (err as Error).message });
  }
  return search;
}

/** The post tables and the outbox every post change appends to. */
export interface PostParts {
  db: Db;
  postRepository: PostRepository;
  outbox: Outbox;
}

export function wirePosts(db: Db): PostParts {
  return { db, postRepository: new PostRepository(db), outbox: new Outbox(db) };
}

/** The post tables with the relay that applies their outbox to the search index (on demand: applyNow). */
export interface IndexParts extends PostParts, SearchParts {
  relay: OutboxRelay;
}

export function wireIndex(posts: PostParts, search: SearchParts, log: Logger): IndexParts {
  return { ...posts, ...search, relay: new OutboxRelay(posts.outbox, posts.postRepository, search.postsIndex, log) };
}

/** The image files, the worker pool and the thumbnail maker. */
export interface FileParts {
  images: ImageStore;
  hashPool: HashPool;
  thumbnailQueue: ThumbnailQueue;
  thumbnailer: Thumbnailer;
}

/**
 * `serving`: the server's limits (a bounded analysis queue, so uploads get 503 rather than waiting;
 * thumbnails made on all workers but one, which stays free for uploads). A job has neither.
 */
export function wireFiles(config: Config, log: Logger, posts: PostParts, serving: boolean): FileParts {
  const images = new ImageStore(config.dataDir, posts.db, posts.postRepository);
  const hashPool = createHashPool({ workers: config.hashWorkers, ...(serving ? { maxQueue: config.hashQueueLimit } : {}) });
  const thumbnailQueue = new ThumbnailQueue(posts.db);
  const thumbnailer = new Thumbnailer({
    images,
    hashPool,
    queue: thumbnailQueue,
    posts: posts.postRepository,
    log,
    ...(serving ? { parallel: config.hashWorkers - 1 } : {}),
  });
  return { images, hashPool, thumbnailQueue, thumbnailer };
}

/**
 * Accounts. `web`: what logging in needs (the session secret, read or created in DATA_DIR, and the
 * log of failed logins); `imgpost user` goes without, so it never creates the secret.
 */
export function wireAccounts(posts: PostParts, web?: { config: Config; log: Logger }): AccountService {
  const { db, postRepository, outbox } = posts;
  if (!web) return new AccountService({ db, posts: postRepository, outbox });
  return new AccountService({ db, posts: postRepository, outbox, sessions: new SessionSealer(loadSessionSecret(web.config)), log: web.log });
}

/** Every service of the application, constructed and idle. */
export interface Core extends SearchParts {
  config: Config;
  log: Logger;
  db: Db;
  postRepository: PostRepository;
  outbox: Outbox;
  /** applies changes on demand (applyNow); only the server starts its polling loop */
  relay: OutboxRelay;
  accounts: AccountService;
  hashPool: HashPool;
  images: ImageStore;
  thumbnailQueue: ThumbnailQueue;
  thumbnailer: Thumbnailer;
  postService: PostService;
  history: PostHistory;
  tagRepository: TagRepository;
  tags: TagService;
  webhookRepository: WebhookRepository;
  webhooks: WebhookService;
  /** sends deliveries on a thread of its own; only the server starts it (jobs leave their deliveries to the server) */
  webhookDispatcher: Dispatcher;
  postSearch: PostSearchService;
  imageSearch: ImageSearchService;
  similar: SimilarService;
}

/** Constructs every service on an open database and search index; starts nothing. */
export function wireCore(config: Config, log: Logger, db: Db, search: SearchParts): Core {
  const posts = wirePosts(db);
  const { postRepository, outbox, relay } = wireIndex(posts, search, log);
  const accounts = wireAccounts(posts, { config, log });
  const { images, hashPool, thumbnailQueue, thumbnailer } = wireFiles(config, log, posts, true);
  const postService = new PostService({ db, posts: postRepository, outbox, relay, postsIndex: search.postsIndex, hashPool, images, thumbnails: thumbnailQueue, log, config });
  // Before anything writes (jobs included): every post change records its version.
  const history = new PostHistory({ db, versions: new VersionRepository(db), postService });
  history.attachTo(outbox);
  const tagRepository = new TagRepository(db);
  const tags = new TagService({ db, tags: tagRepository });
  // Deliveries are queued inside each post change's transaction; the server's dispatcher sends them.
  const webhookRepository = new WebhookRepository(db);
  const webhookDispatcher = new DispatcherThread({ dataDir: config.dataDir, config, log, hasPending: () => webhookRepository.hasPending() });
  attachFanOut(outbox, webhookRepository, () => webhookDispatcher.kick());
  const webhooks = new WebhookService({ repo: webhookRepository, config, onReactivated: () => webhookDispatcher.kick() });
  const engine = { ...search, postRepository, config };
  return {
    config,
    log,
    db,
    ...search,
    postRepository,
    outbox,
    relay,
    accounts,
    hashPool,
    images,
    thumbnailQueue,
    thumbnailer,
    postService,
    history,
    tagRepository,
    tags,
    webhookRepository,
    webhooks,
    webhookDispatcher,
    postSearch: new PostSearchService(engine),
    imageSearch: new ImageSearchService(engine),
    similar: new SimilarService({ ...engine, hashPool }),
  };
}

/** Opens the database and the search index, then wires the core. */
export async function openCore(config: Config, log: Logger): Promise<Core> {
  const search = await openSearch(config, log);
  try {
    return wireCore(config, log, openDatabase(config.dataDir), search);
  } catch (err) {
    await search.es.close();
    throw err;
  }
}

/** Closes what wireCore opened, in reverse order. Loops must be stopped first. */
export async function closeCore(core: Core): Promise<void> {
  await core.hashPool.destroy();
  await core.es.close();
  core.db.close();
}
