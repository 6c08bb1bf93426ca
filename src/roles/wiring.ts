import { FileFactsRunner } from '../posts/file-facts-runner.ts';
import { DihedralBackfill } from '../search/similar/dihedral-backfill.ts';
import { LeanPostRows } from '../kernel/lean-post-rows.ts';
import type { PostPeopleTables } from '../posts/post-tables.ts';
import { BooruService } from '../booru/service.ts';
import type { AppServices } from '../app.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/sqlite.ts';
import type { Logger } from '../log.ts';
import { OutboxRelay } from '../elasticsearch/outbox-relay.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { TagRepository } from '../kernel/tag-repository.ts';
import { PostService } from '../posts/service.ts';
import { PostHistory } from '../posts/versions/history.ts';
import { DeletionRequestRepository } from '../moderation/deletion-request-repository.ts';
import { ModerationService } from '../moderation/service.ts';
import type { ImplicationRunner } from '../tags/implication-runner.ts';
import { ImageSearchService } from '../search/image-search/service.ts';
import { PostSearchService } from '../search/post-search/service.ts';
import { SimilarService } from '../search/similar/service.ts';
import type { DescriptorRunner } from '../thumbnails/descriptor-runner.ts';
import { DispatcherThread } from '../webhooks/dispatcher-thread.ts';
import type { WebhookRepository } from '../webhook-store/webhook-repository.ts';
import { WebhookService } from '../webhooks/service.ts';
import { PreferenceStore } from '../accounts/preferences.ts';
import { UserAdmin } from '../accounts/user-admin.ts';
import { FavoriteService } from '../favorites/service.ts';
import { QuickSearch } from '../favorites/quick-search.ts';
import { CommentService } from '../comments/service.ts';
import { NoteRepository } from '../notes/note-repository.ts';
import { NoteService } from '../notes/service.ts';
import { WikiRepository } from '../wiki/wiki-repository.ts';
import { WikiService } from '../wiki/service.ts';
import { VoteService } from '../votes/service.ts';
import { PasskeyService } from '../passkeys/service.ts';
import { PoolRepository } from '../pools/pool-repository.ts';
import { PoolService } from '../pools/service.ts';
import { PostChildren } from '../posts/parents/children.ts';
import { openSearch, type SearchParts } from './search-parts.ts';
import { wirePosts } from './post-parts.ts';
import { wireDescriptors, wireImages, wireThumbnailer, wireUploadWork } from './file-parts.ts';
import { wireAccounts } from './account-parts.ts';
import { wireDirectUploads, wireMediaRedirect } from './direct-media.ts';
import { wireTags } from './tag-parts.ts';
import { wireVideo } from './video-parts.ts';

/**
 * The composition root of every service both roles run (src/roles/server.ts, src/roles/jobs.ts):
 * what exists, then who reacts to what. The building blocks it wires from are its siblings
 * (post-parts.ts, file-parts.ts, account-parts.ts, direct-media.ts, tag-parts.ts), which the jobs
 * also use alone. Nothing here starts a loop, takes the DATA_DIR lock or touches files it did not
 * create: that is the server's.
 */

/**
 * Every service of the application, constructed and idle: what the app is built from
 * (AppServices), and what only the roles use besides.
 */
export interface Core extends SearchParts, AppServices {
  postRepository: PostRepository;
  /** the favorites', comments' and votes' tables */
  people: PostPeopleTables;
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
  /** the eight symmetries' hashes of posts from before migration 025 (docs/decisions.md §24) */
  dihedralHashes: DihedralBackfill;
}

/**
 * Constructs every service on an open database and search index, then subscribes the reactions to
 * the unit of work's events; starts nothing (the server starts the loops, a job none of them).
 */
export function wireCore(config: Config, log: Logger, db: Db, search: SearchParts): Core {
  // What exists: the kernel, the outside systems, then the features, each from what is above it.
  const posts = wirePosts(db, log);
  const { postRepository, outbox, versions, webhookRepository, thumbnailQueue, unitOfWork } = posts;
  const files = wireImages(config, log, posts, true);
  const { images, hashPool } = files;
  const relay = new OutboxRelay(outbox, postRepository, search.postsIndex, log, {
    maxBackoffMs: config.relayMaxBackoffMs,
    groupGapMs: config.indexGroupGapMs,
    // Urgent pool work is mostly uploads in their image work, whose writes wait for the index next (a
    // similar-image lookup's hash is too, and only makes a group wait up to the gap: docs/decisions.md §6).
    moreComing: () => hashPool.urgentTasks > 0,
  });
  const video = wireVideo(config, db, hashPool);
  const descriptors = wireDescriptors(config, log, posts, files);
  const thumbnailer = wireThumbnailer(
    config,
    log,
    posts,
    files,
    true,
    config.robustDescriptors.enabled ? descriptors : undefined,
  );
  const webhookDispatcher = new DispatcherThread({
    dataDir: config.dataDir,
    config,
    log,
    hasPending: () => webhookRepository.hasPending(),
    leaseMs: config.webhookClaimLeaseMs,
    threads: config.webhookDispatcherThreads,
    logLevel: config.logLevel,
  });
  const accounts = wireAccounts(posts, config, { log });
  const directUploads = wireDirectUploads(config, log, posts, images);
  const mediaRedirect = wireMediaRedirect(config, posts, images, thumbnailer);
  // docs/decisions.md §19: a deleted post leaves its pools, a merged one hands its places to the kept one.
  const pools = new PoolService({
    db,
    posts: postRepository,
    pools: new PoolRepository(db, accounts.users),
    unitOfWork,
  });
  const postService = new PostService({
    moving: video,
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
    withUpload: wireUploadWork(config, files),
  });
  const history = new PostHistory({ db, versions, postService });
  const { tagRepository, tags, tagGovernance, implicationRunner } = wireTags(posts, log);
  const webhooks = new WebhookService({ repo: webhookRepository, config, dispatcher: webhookDispatcher });
  const engine = { ...search, postRepository, config };
  const favorites = new FavoriteService({
    postRepository,
    favorites: posts.people.favorites,
    unitOfWork,
    findPost: (ref) => postService.find(ref),
  });
  const userIdOf = (name: string) => accounts.users.getByName(name)?.id;
  const imageSearch = new ImageSearchService({ ...engine, userIdOf });
  // docs/decisions.md §18: comments and votes, which a merge moves too
  const findPost = (ref: string) => postService.find(ref);
  const comments = new CommentService({
    postRepository,
    comments: posts.people.comments,
    unitOfWork,
    findPost,
    users: accounts.users,
    userIdOf,
  });
  const votes = new VoteService({ postRepository, votes: posts.people.votes, unitOfWork, findPost });
  // docs/decisions.md §23: tag wiki pages, and notes over images, which a merge moves too
  const wiki = new WikiService({
    db,
    wiki: new WikiRepository(db),
    rules: postRepository.tagRules,
    tags: tagRepository,
    users: accounts.users,
  });
  const notes = new NoteService({
    postRepository,
    notes: new NoteRepository(db),
    unitOfWork,
    findPost,
    users: accounts.users,
  });

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
    ffmpeg: video.pictures.tools,
    ...search,
    postRepository,
    people: posts.people,
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
      conversation: [comments, votes, notes],
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
    dihedralHashes: new DihedralBackfill({ posts: postRepository, images, hashPool, log }),
    webhooks,
    webhookDispatcher,
    postSearch: new PostSearchService(engine),
    imageSearch,
    booru: new BooruService({
      ...engine,
      tagRepository,
      pools,
      userIdOf: (name) => accounts.users.getByName(name)?.id,
      rows: new LeanPostRows(db),
      notes,
      wiki,
      comments,
      users: accounts.users,
    }),
    preferences: new PreferenceStore(db),
    userAdmin: new UserAdmin(accounts),
    favorites,
    quickSearch: new QuickSearch({ postRepository, favorites: posts.people.favorites, imageSearch, config }),
    comments,
    votes,
    wiki,
    notes,
    similar: new SimilarService({ ...engine, hashPool, moving: video, findPost: (ref) => postService.find(ref) }),
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
