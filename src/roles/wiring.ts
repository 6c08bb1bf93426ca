import path from 'node:path';
import type { AppServices } from '../app.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/sqlite.ts';
import { createEsClient, type EsClient } from '../elasticsearch/client.ts';
import { startManagedNode } from '../dev-services/elasticsearch/managed-node.ts';
import { PostsIndex } from '../elasticsearch/posts-index.ts';
import type { Logger } from '../log.ts';
import { PostChanges } from '../kernel/commit.ts';
import { Outbox } from '../kernel/outbox.ts';
import { OutboxRelay } from '../outbox/relay.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import { AccountService } from '../accounts/service.ts';
import { loadSessionSecret, SessionSealer } from '../accounts/session-cookie.ts';
import { PostService } from '../posts/service.ts';
import { DirectUploads } from '../posts/direct-upload/direct-uploads.ts';
import { UploadGrantRepository } from '../posts/direct-upload/grant-repository.ts';
import { bodyCapFor } from '../http/body.ts';
import { PostHistory } from '../posts/versions/history.ts';
import { DeletionRequestRepository } from '../moderation/deletion-request-repository.ts';
import { ModerationService } from '../moderation/service.ts';
import { VersionRepository } from '../kernel/version-repository.ts';
import { TagRepository } from '../kernel/tag-repository.ts';
import { TagService } from '../tags/service.ts';
import { TagGovernance } from '../tags/governance.ts';
import { TagJobRepository } from '../tags/job-repository.ts';
import { ImplicationRunner } from '../tags/implication-runner.ts';
import { ImageSearchService } from '../search/image-search/service.ts';
import { PostSearchService } from '../search/post-search/service.ts';
import { SimilarService } from '../search/similar/service.ts';
import { createHashPool, type HashPool } from '../hashing/pool.ts';
import { ImageStore } from '../media/store/image-store.ts';
import { LocalMediaStore } from '../media/store/local-store.ts';
import type { MediaStore } from '../media/store/media-store.ts';
import { S3MediaStore } from '../media/store/s3-store.ts';
import { MediaStoreStates } from '../media/store/store-state.ts';
import { MediaStores } from '../media/store/stores.ts';
import { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import { Thumbnailer, type ThumbnailerDeps } from '../thumbnails/thumbnailer.ts';
import type { RobustResult } from '../hashing/tasks.ts';
import { DescriptorRunner } from '../robust/descriptor-runner.ts';
import { MediaRedirect } from '../media/redirect.ts';
import { DispatcherThread } from '../webhooks/dispatcher-thread.ts';
import { WebhookRepository } from '../webhooks/store/webhook-repository.ts';
import { WebhookService } from '../webhooks/service.ts';
import { UserRepository } from '../accounts/user-repository.ts';
import { PreferenceStore } from '../accounts/preferences.ts';
import { UserAdmin } from '../accounts/user-admin.ts';
import { FavoriteService } from '../favorites/service.ts';
import { QuickSearch } from '../favorites/quick-search.ts';
import { PasskeyRepository } from '../passkeys/repository.ts';
import { PasskeyService } from '../passkeys/service.ts';

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
    // An index built for an older mapping gets the fields it lacks (a document carrying them would be refused).
    if (!(await search.postsIndex.ensure())) {
      const added = await search.postsIndex.addMissingFields();
      if (added.length > 0) log.info('added new fields to the posts index', { fields: added });
    }
  } catch (err) {
    // Still usable: writes queue in the outbox; readiness reports Elasticsearch down.
    log.warn('could not prepare the posts index yet', { err: (err as Error).message });
  }
  return search;
}

/**
 * The post tables and the one commit step every post write goes through (outbox row, version,
 * webhook deliveries, thumbnail job: src/kernel/commit.ts).
 */
export interface PostParts {
  db: Db;
  postRepository: PostRepository;
  outbox: Outbox;
  versions: VersionRepository;
  webhookRepository: WebhookRepository;
  thumbnailQueue: ThumbnailQueue;
  changes: PostChanges;
}

/**
 * `onCommitted` wakes whatever sends the deliveries a change queued: the server's dispatcher. A job
 * has none running and leaves its deliveries to the server.
 */
export function wirePosts(db: Db, onCommitted: () => void = () => {}): PostParts {
  // Posts and versions show users' names; the users table is the accounts' to read.
  const userNames = new UserRepository(db);
  const postRepository = new PostRepository(db, userNames);
  const outbox = new Outbox(db);
  const versions = new VersionRepository(db, userNames);
  const webhookRepository = new WebhookRepository(db);
  const thumbnailQueue = new ThumbnailQueue(db);
  const changes = new PostChanges({ db, outbox, versions, webhooks: webhookRepository, thumbnails: thumbnailQueue, onCommitted });
  return { db, postRepository, outbox, versions, webhookRepository, thumbnailQueue, changes };
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
  thumbnailer: Thumbnailer;
}

/** MEDIA_STORE's store name: `local` or `s3://bucket/prefix/` (as src/media/store/store-state.ts spells it). */
export const configuredStoreName = (config: Config): string => (config.s3 ? `s3://${config.s3.bucket}/${config.s3.prefix}` : 'local');

/**
 * A media store by name (decisions §17): `local` is DATA_DIR/images, `s3://...` a bucket with the
 * S3_* settings. Throws ConfigError for a name that is neither, or bad S3_* settings.
 */
export function openMediaStoreNamed(config: Config, log: Logger, name: string, setting?: string): MediaStore {
  if (name === 'local') return new LocalMediaStore(path.join(config.dataDir, 'images'));
  const settings = config.s3 && name === configuredStoreName(config) ? config.s3 : config.s3At(name, setting);
  // The SDK's own warnings (a socket pool at capacity, ...) go to our log, at debug.
  const sdkLog = (msg: unknown, ...rest: unknown[]) => log.debug('s3 client', { msg: String(msg), more: rest.length ? String(rest) : undefined });
  return new S3MediaStore({ ...settings, logger: { trace() {}, debug() {}, info() {}, warn: sdkLog, error: sdkLog } });
}

/** The media store MEDIA_STORE names: DATA_DIR/images by default, else an S3 bucket. */
export const createMediaStore = (config: Config, log: Logger): MediaStore => openMediaStoreNamed(config, log, configuredStoreName(config));

/** The store in use: the one `imgpost media migrate` recorded in the database, else MEDIA_STORE's. */
export function wireMediaStores(config: Config, log: Logger, db: Db): MediaStores {
  return new MediaStores(new MediaStoreStates(db), configuredStoreName(config), (name) => openMediaStoreNamed(config, log, name));
}

/**
 * `serving`: the server's limits (a bounded analysis queue, so uploads get 503 rather than waiting;
 * thumbnails made on all workers but one, which stays free for uploads) and its idle workers let go.
 * A job has none of them: it keeps its workers busy until it ends.
 */
export function wireFiles(config: Config, log: Logger, posts: PostParts, serving: boolean, descriptors?: ThumbnailerDeps['descriptors']): FileParts {
  const images = new ImageStore(wireMediaStores(config, log, posts.db), config.dataDir, posts.db, posts.postRepository);
  const hashPool = createHashPool({ workers: config.hashWorkers, ...(serving ? { maxQueue: config.hashQueueLimit, idleMs: config.hashWorkerIdleMs } : {}) });
  const thumbnailer = new Thumbnailer({
    images,
    hashPool,
    queue: posts.thumbnailQueue,
    posts: posts.postRepository,
    log,
    ...(serving ? { parallel: config.hashWorkers - 1 } : {}),
    descriptors,
  });
  return { images, hashPool, thumbnailer };
}

/**
 * Accounts. `web`: what logging in needs (the session secret, read or created in DATA_DIR, and the
 * log of failed logins); `imgpost user` goes without, so it never creates the secret.
 */
export function wireAccounts(posts: PostParts, web?: { config: Config; log: Logger }): AccountService {
  const { db, postRepository, changes } = posts;
  const passkeys = new PasskeyRepository(db);
  if (!web) return new AccountService({ db, posts: postRepository, changes, passkeys });
  return new AccountService({
    db,
    posts: postRepository,
    changes,
    passkeys,
    sessions: new SessionSealer(loadSessionSecret(web.config)),
    registration: { mode: web.config.registration, permission: web.config.registrationPermission },
    log: web.log,
  });
}

/**
 * Every service of the application, constructed and idle: what the app is built from
 * (AppServices), and what only the roles use besides.
 */
export interface Core extends SearchParts, AppServices {
  postRepository: PostRepository;
  /** the commit step of every post write */
  changes: PostChanges;
  tagRepository: TagRepository;
  /** applies new implications to existing posts; only the server starts it */
  implicationRunner: ImplicationRunner;
  webhookRepository: WebhookRepository;
  /** robust descriptors after uploads and for older posts (decisions §16); only the server starts it */
  descriptors: DescriptorRunner;
}

/** Constructs every service on an open database and search index; starts nothing. */
export function wireCore(config: Config, log: Logger, db: Db, search: SearchParts): Core {
  // Every post write commits through posts.changes; its deliveries wake the dispatcher (started
  // by the server only; a job's wake-up finds it idle and is harmless).
  const posts = wirePosts(db, () => webhookDispatcher.kick());
  const { postRepository, outbox, versions, webhookRepository, thumbnailQueue, changes, relay } = wireIndex(posts, search, log);
  // New posts' descriptors come with their thumbnails (one decode), when the server computes
  // descriptors at all (ROBUST_DESCRIPTORS); the runner is made below.
  const sharedDecode = config.robustDescriptors.enabled ? { wants: (id: string) => descriptors.wants(id), storeComputed: (id: string, d: RobustResult) => descriptors.storeComputed(id, d) } : undefined;
  const { images, hashPool, thumbnailer } = wireFiles(config, log, posts, true, sharedDecode);
  const webhookDispatcher = new DispatcherThread({ dataDir: config.dataDir, config, log, hasPending: () => webhookRepository.hasPending() });
  const accounts = wireAccounts(posts, { config, log });
  const descriptors = new DescriptorRunner({
    db,
    posts: postRepository,
    changes,
    images,
    hashPool,
    log,
    onStored: () => relay.kick(),
    pauseMs: config.robustDescriptors.pauseMs,
    // Only when a thumbnailer runs the queued jobs (and so brings their descriptors).
    ...(sharedDecode && config.backgroundThumbnails ? { thumbnailsWillRun: (id: string) => thumbnailQueue.willRun(id) } : {}),
  });
  const directUploads = new DirectUploads({
    store: images.store,
    grants: new UploadGrantRepository(db),
    tmpDir: images.tmpDir,
    log,
    settings: { expiresInS: config.directUploadExpiresS, maxImageBytes: config.maxImageBytes, maxBodyBytes: bodyCapFor(config.maxImageBytes) },
  });
  const mediaRedirect = config.mediaRedirect.mode === 'presigned'
    ? new MediaRedirect({ stores: images.stores, posts: postRepository, thumbnails: thumbnailQueue, thumbnailer, expiresS: config.mediaRedirect.expiresS })
    : undefined;
  const postService = new PostService({ db, posts: postRepository, outbox, changes, relay, postsIndex: search.postsIndex, hashPool, images, log, config, directUploads, onCreated: () => descriptors.loop.kick() });
  const history = new PostHistory({ db, versions, postService });
  const tagRepository = new TagRepository(db);
  const tags = new TagService({ db, tags: tagRepository });
  const tagJobs = new TagJobRepository(db);
  const implicationRunner = new ImplicationRunner({ db, posts: postRepository, changes, jobs: tagJobs, onBatch: () => relay.kick(), log });
  const tagGovernance = new TagGovernance({
    db,
    posts: postRepository,
    changes,
    jobs: tagJobs,
    kickRelay: () => relay.kick(),
    kickJobs: () => implicationRunner.loop.kick(),
  });
  const webhooks = new WebhookService({ repo: webhookRepository, config, onReactivated: () => webhookDispatcher.kick() });
  const engine = { ...search, postRepository, config };
  const favorites = new FavoriteService({ db, postRepository, changes, relay, findPost: (ref) => postService.find(ref) });
  const imageSearch = new ImageSearchService({ ...engine, userIdOf: (name) => accounts.users.getByName(name)?.id });
  return {
    config,
    log,
    db,
    ...search,
    postRepository,
    outbox,
    changes,
    relay,
    accounts,
    hashPool,
    images,
    thumbnailQueue,
    thumbnailer,
    mediaRedirect,
    postService,
    directUploads,
    history,
    // A merge moves the merged post's favorites to the kept one (src/moderation/service.ts).
    moderation: new ModerationService({ db, requests: new DeletionRequestRepository(db), postService, posts: postRepository, favorites }),
    tagRepository,
    tags,
    tagGovernance,
    implicationRunner,
    webhookRepository,
    descriptors,
    webhooks,
    webhookDispatcher,
    postSearch: new PostSearchService(engine),
    imageSearch,
    preferences: new PreferenceStore(db),
    userAdmin: new UserAdmin(accounts),
    favorites,
    quickSearch: new QuickSearch({ postRepository, imageSearch, config }),
    similar: new SimilarService({ ...engine, hashPool, findPost: (ref) => postService.find(ref) }),
    passkeys: new PasskeyService({ accounts, config, log }),
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
  core.images.stores.close();
  core.db.close();
}
