import { FileFactsRunner } from '../posts/file-facts-runner.ts';
import { BooruService } from '../booru/service.ts';
import type { AppServices } from '../app.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/sqlite.ts';
import type { Logger } from '../log.ts';
import { KernelEvents } from '../kernel/events.ts';
import { UnitOfWork } from '../kernel/unit-of-work.ts';
import { Outbox } from '../kernel/outbox.ts';
import { OutboxRelay } from '../outbox/relay.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import { AccountService } from '../accounts/service.ts';
import { paramsAtCost } from '../accounts/passwords.ts';
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
import { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import { Thumbnailer, type ThumbnailerDeps } from '../thumbnails/thumbnailer.ts';
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
import { CommentService } from '../comments/service.ts';
import { VoteService } from '../votes/service.ts';
import { PasskeyRepository } from '../passkeys/repository.ts';
import { PasskeyService } from '../passkeys/service.ts';
import { PoolRepository } from '../pools/pool-repository.ts';
import { PoolService } from '../pools/service.ts';
import { PostChildren } from '../posts/parents/children.ts';
import { wireMediaStores } from './media-stores.ts';
import { openSearch, type SearchParts } from './search-parts.ts';

/**
 * The building blocks both roles wire from (src/roles/server.ts, src/roles/jobs.ts). Nothing here
 * starts a loop, takes the DATA_DIR lock or touches files it did not create: that is the server's.
 */

/**
 * The post tables and the unit of work every post write runs as (src/kernel/unit-of-work.ts), with
 * its event bus, nobody listening yet: each role subscribes the reactions it runs.
 */
export interface PostParts {
  db: Db;
  postRepository: PostRepository;
  outbox: Outbox;
  versions: VersionRepository;
  webhookRepository: WebhookRepository;
  thumbnailQueue: ThumbnailQueue;
  unitOfWork: UnitOfWork;
}

export function wirePosts(db: Db, log?: Logger): PostParts {
  // Posts and versions show users' names; the users table is the accounts' to read.
  const userNames = new UserRepository(db);
  const postRepository = new PostRepository(db, userNames);
  const outbox = new Outbox(db);
  const versions = new VersionRepository(db, userNames);
  const webhookRepository = new WebhookRepository(db);
  const thumbnailQueue = new ThumbnailQueue(db);
  // A reaction that fails is logged: its write has committed, and a background loop retries.
  const events = new KernelEvents((event, err) =>
    log?.warn('a reaction to a committed write failed', { event, err: (err as Error).message }),
  );
  const unitOfWork = new UnitOfWork({
    db,
    outbox,
    versions,
    webhooks: webhookRepository,
    thumbnails: thumbnailQueue,
    events,
  });
  return { db, postRepository, outbox, versions, webhookRepository, thumbnailQueue, unitOfWork };
}

/** The post tables with the relay that applies their outbox to the search index. */
export interface IndexParts extends PostParts, SearchParts {
  relay: OutboxRelay;
}

/** The relay, listening: a job's writes (verify's repairs) reach the index through it. */
export function wireIndex(posts: PostParts, search: SearchParts, log: Logger): IndexParts {
  const relay = new OutboxRelay(posts.outbox, posts.postRepository, search.postsIndex, log);
  posts.unitOfWork.events.on('posts.changed', ({ rows, awaited }) => relay.changed(rows, awaited));
  return { ...posts, ...search, relay };
}

/** The image files and the worker pool. */
export interface ImageParts {
  images: ImageStore;
  hashPool: HashPool;
}

/** The image files, the worker pool and the thumbnail maker. */
export interface FileParts extends ImageParts {
  thumbnailer: Thumbnailer;
}

/**
 * `serving`: the server's limits (a bounded analysis queue, so uploads get 503 rather than waiting)
 * and its idle workers let go. A job has none of them: it keeps its workers busy until it ends.
 */
export function wireImages(config: Config, log: Logger, posts: PostParts, serving: boolean): ImageParts {
  const images = new ImageStore(wireMediaStores(config, log, posts.db), config.dataDir, posts.db, posts.postRepository);
  const hashPool = createHashPool({
    workers: config.hashWorkers,
    ...(serving ? { maxQueue: config.hashQueueLimit, idleMs: config.hashWorkerIdleMs } : {}),
  });
  return { images, hashPool };
}

/**
 * The thumbnail maker. `serving`: thumbnails made on all workers but one, which stays free for
 * uploads. `descriptors`: new posts' robust descriptors come with their thumbnails (one decode).
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
 * Accounts. `web`: what logging in needs (the session secret, read or created in DATA_DIR, and the
 * log of failed logins); `imgpost user` goes without, so it never creates the secret.
 */
export function wireAccounts(posts: PostParts, config: Config, web?: { log: Logger }): AccountService {
  const { db, postRepository, unitOfWork } = posts;
  const passkeys = new PasskeyRepository(db);
  const passwordParams = paramsAtCost(config.passwordHashCost);
  if (!web) return new AccountService({ db, posts: postRepository, unitOfWork, passkeys, passwordParams });
  return new AccountService({
    db,
    posts: postRepository,
    unitOfWork,
    passkeys,
    passwordParams,
    sessions: new SessionSealer(loadSessionSecret(config)),
    registration: { mode: config.registration, permission: config.registrationPermission },
    log: web.log,
  });
}

/**
 * Every service of the application, constructed and idle: what the app is built from
 * (AppServices), and what only the roles use besides.
 */
export interface Core extends SearchParts, AppServices {
  postRepository: PostRepository;
  /** every post write runs as one */
  unitOfWork: UnitOfWork;
  tagRepository: TagRepository;
  /** applies new implications to existing posts; only the server starts it */
  implicationRunner: ImplicationRunner;
  webhookRepository: WebhookRepository;
  /** robust descriptors after uploads and for older posts (docs/decisions.md §16); only the server starts it */
  descriptors: DescriptorRunner;
  /** the stored files' MD5 and size for posts from before migration 020 (docs/decisions.md §20) */
  fileFacts: FileFactsRunner;
}

/**
 * Constructs every service on an open database and search index, then subscribes the reactions to
 * the unit of work's events; starts nothing (the server starts the loops, a job none of them).
 */
export function wireCore(config: Config, log: Logger, db: Db, search: SearchParts): Core {
  // What exists: the kernel, the outside systems, then the features, each from what is above it.
  const posts = wirePosts(db, log);
  const { postRepository, outbox, versions, webhookRepository, thumbnailQueue, unitOfWork } = posts;
  const relay = new OutboxRelay(outbox, postRepository, search.postsIndex, log, {
    maxBackoffMs: config.relayMaxBackoffMs,
  });
  const { images, hashPool } = wireImages(config, log, posts, true);
  const descriptors = new DescriptorRunner({
    posts: postRepository,
    unitOfWork,
    images,
    hashPool,
    log,
    pauseMs: config.robustDescriptors.pauseMs,
    // When a thumbnailer runs the queued jobs, it brings their descriptors (one decode).
    ...(config.robustDescriptors.enabled && config.backgroundThumbnails
      ? { thumbnailsWillRun: (id: string) => thumbnailQueue.willRun(id) }
      : {}),
  });
  const thumbnailer = wireThumbnailer(
    config,
    log,
    posts,
    { images, hashPool },
    true,
    config.robustDescriptors.enabled ? descriptors : undefined,
  );
  const webhookDispatcher = new DispatcherThread({
    dataDir: config.dataDir,
    config,
    log,
    hasPending: () => webhookRepository.hasPending(),
    leaseMs: config.webhookClaimLeaseMs,
  });
  const accounts = wireAccounts(posts, config, { log });
  const directUploads = new DirectUploads({
    store: images.store,
    grants: new UploadGrantRepository(db),
    tmpDir: images.tmpDir,
    log,
    settings: {
      expiresInS: config.directUploadExpiresS,
      maxImageBytes: config.maxImageBytes,
      maxBodyBytes: bodyCapFor(config.maxImageBytes),
    },
  });
  const mediaRedirect =
    config.mediaRedirect.mode === 'presigned'
      ? new MediaRedirect({
          stores: images.stores,
          posts: postRepository,
          thumbnails: thumbnailQueue,
          thumbnailer,
          expiresS: config.mediaRedirect.expiresS,
        })
      : undefined;
  // docs/decisions.md §19: a deleted post leaves its pools, a merged one hands its places to the kept one.
  const pools = new PoolService({
    db,
    posts: postRepository,
    pools: new PoolRepository(db, accounts.users),
    unitOfWork,
  });
  const postService = new PostService({
    pools,
    posts: postRepository,
    outbox,
    unitOfWork,
    postsIndex: search.postsIndex,
    hashPool,
    images,
    log,
    config,
    directUploads,
  });
  const history = new PostHistory({ db, versions, postService });
  const tagRepository = new TagRepository(db);
  const tags = new TagService({ db, tags: tagRepository });
  const tagJobs = new TagJobRepository(db);
  const implicationRunner = new ImplicationRunner({ posts: postRepository, unitOfWork, jobs: tagJobs, log });
  const tagGovernance = new TagGovernance({
    db,
    posts: postRepository,
    tags: tagRepository,
    unitOfWork,
    jobs: tagJobs,
    implications: implicationRunner,
  });
  const webhooks = new WebhookService({ repo: webhookRepository, config, dispatcher: webhookDispatcher });
  const engine = { ...search, postRepository, config };
  const favorites = new FavoriteService({ postRepository, unitOfWork, findPost: (ref) => postService.find(ref) });
  const userIdOf = (name: string) => accounts.users.getByName(name)?.id;
  const imageSearch = new ImageSearchService({ ...engine, userIdOf });
  // docs/decisions.md §18: comments and votes, which a merge moves too
  const findPost = (ref: string) => postService.find(ref);
  const comments = new CommentService({ postRepository, unitOfWork, findPost, users: accounts.users, userIdOf });
  const votes = new VoteService({ postRepository, unitOfWork, findPost });

  // Who reacts to what a committed write set off (src/kernel/events.ts).
  const { events } = unitOfWork;
  events.on('images.released', ({ images: released }) => postService.removeReleasedImages(released));
  events.on('deliveries.queued', () => webhookDispatcher.kick());
  events.on('thumbnails.wanted', () => thumbnailer.kick());
  events.on('posts.changed', ({ rows, awaited }) => relay.changed(rows, awaited));
  events.on('descriptors.wanted', () => descriptors.kick());

  return {
    config,
    log,
    db,
    ...search,
    postRepository,
    outbox,
    unitOfWork,
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
    moderation: new ModerationService({
      db,
      unitOfWork,
      requests: new DeletionRequestRepository(db),
      postService,
      posts: postRepository,
      favorites,
      conversation: [comments, votes],
      pools,
    }),
    pools,
    children: new PostChildren({ db, posts: postRepository, postService }),
    tagRepository,
    tags,
    tagGovernance,
    implicationRunner,
    webhookRepository,
    descriptors,
    fileFacts: new FileFactsRunner({ posts: postRepository, images, log }),
    webhooks,
    webhookDispatcher,
    postSearch: new PostSearchService(engine),
    imageSearch,
    booru: new BooruService({
      ...engine,
      tagRepository,
      pools,
      userIdOf: (name) => accounts.users.getByName(name)?.id,
    }),
    preferences: new PreferenceStore(db),
    userAdmin: new UserAdmin(accounts),
    favorites,
    quickSearch: new QuickSearch({ postRepository, imageSearch, config }),
    comments,
    votes,
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
