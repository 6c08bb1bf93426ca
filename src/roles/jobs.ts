import { TagJobRepository } from '../tags/job-repository.ts';
import { FileFactsRunner } from '../posts/file-facts-runner.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import type { AccountService } from '../accounts/service.ts';
import type { Config } from '../config.ts';
import fs from 'node:fs';
import path from 'node:path';
import { DATABASE_FILE, openDatabase } from '../db/sqlite.ts';
import type { Logger } from '../log.ts';
import type { MediaStore } from '../media-store/media-store.ts';
import { PendingFiles } from '../media-store/pending-files.ts';
import { MediaStoreStates } from '../media-store/store-state.ts';
import { RetiringIndexRepository } from '../search/retiring-index-repository.ts';
import type { MigrationDeps } from '../media/migrate.ts';
import { createMediaStore, openMediaStoreNamed, wireMediaStores } from './media-stores.ts';
import { connectSearch, openSearch, type SearchParts } from './search-parts.ts';
import { closeCore, openCore, type Core } from './wiring.ts';
import { wireIndex, wirePosts, type IndexParts, type PostParts } from './post-parts.ts';
import { wireFiles, wireImageStore, type FileParts } from './file-parts.ts';
import { wireAccounts } from './account-parts.ts';
import type { TableProblem } from '../db/table-problem.ts';
import { NoteRepository } from '../notes/note-repository.ts';
import { WikiRepository } from '../wiki/wiki-repository.ts';

/**
 * The job role (docs/decisions.md §13): what a CLI command wires; commands get their services here and
 * nowhere else. Each opens only what its command needs; none takes the DATA_DIR lock, runs start-up
 * recovery (it would delete a live server's uploads in flight) or starts a background loop, so
 * every job is safe beside a running server. A job's writes run as units of work like the server's;
 * only the reactions its role subscribes run in it (the relay, in the jobs that open the index), and
 * the rest is left to the server's loops, which poll for it: its webhook deliveries are sent by the
 * server's dispatcher, its thumbnails and descriptors made by the server's runners.
 */

/** verify, reindex: SQLite and the search index. */
export interface IndexJob extends IndexParts {
  config: Config;
  log: Logger;
  /**
   * verify --repair: the backfill of md5 and size (docs/decisions.md §20) on the image files, opened on
   * demand (only then are the media stores reached); closed with the job
   */
  fileFacts(): FileFactsRunner;
  /** verify: the wiki and note rows that break their tables' rules (docs/decisions.md §23) */
  knowledgeProblems(): TableProblem[];
  close(): Promise<void>;
}

export async function openIndexJob(config: Config, log: Logger): Promise<IndexJob> {
  const search = await openSearch(config, log);
  const parts = wireIndex(wirePosts(openDatabase(config.dataDir), log), search, log);
  let images: ImageStore | undefined;
  return {
    config,
    log,
    ...parts,
    fileFacts() {
      images ??= wireImageStore(config, log, parts);
      return new FileFactsRunner({ posts: parts.postRepository, images, log });
    },
    knowledgeProblems() {
      return [...new WikiRepository(parts.db).problems(), ...new NoteRepository(parts.db).problems()];
    },
    async close() {
      await search.es.close();
      images?.stores.close();
      parts.db.close();
    },
  };
}

/** restore: the search engine, its index not prepared (restore refuses an index that exists). */
export const connectSearchJob = (config: Config, log: Logger): Promise<SearchParts> => connectSearch(config, log);

/** restore, once the files are in place: the restored database (opened once, migrated), and on it each step's parts. */
export interface RestoredJob {
  /** the thumbnail maker (worker threads: only when thumbnails are missing); its close() ends the workers */
  files(): Omit<FilesJob, 'db'>;
  /** what the rebuild of the index works on; the caller closes `search` */
  index(search: SearchParts): Omit<IndexJob, 'close' | 'fileFacts' | 'knowledgeProblems'>;
  close(): void;
}

export function openRestoredJob(config: Config, log: Logger): RestoredJob {
  const posts = wirePosts(openDatabase(config.dataDir), log);
  // The backup's row named the store it was taken from; the files went into MEDIA_STORE's.
  new MediaStoreStates(posts.db).clear();
  // And the posts indices it had yet to retire were that deployment's, not this one's.
  new RetiringIndexRepository(posts.db).clear();
  return {
    files() {
      const files = wireFiles(config, log, posts);
      return { posts: posts.postRepository, ...files, close: () => files.hashPool.destroy() };
    },
    index: (search) => ({ config, log, ...wireIndex(posts, search, log) }),
    close: () => posts.db.close(),
  };
}

/** rethumb: SQLite, the image files and the worker pool; no Elasticsearch. */
export interface FilesJob extends FileParts {
  db: PostParts['db'];
  posts: PostParts['postRepository'];
  close(): Promise<void>;
}

export function openFilesJob(config: Config, log: Logger): FilesJob {
  const posts = wirePosts(openDatabase(config.dataDir));
  const files = wireFiles(config, log, posts);
  return {
    db: posts.db,
    posts: posts.postRepository,
    ...files,
    async close() {
      await files.hashPool.destroy();
      posts.db.close();
    },
  };
}

/** user: the accounts on SQLite alone; account removal's outbox rows wait for the server's relay. */
export interface AccountsJob {
  accounts: AccountService;
  close(): void;
}

export function openAccountsJob(config: Config): AccountsJob {
  const posts = wirePosts(openDatabase(config.dataDir));
  return { accounts: wireAccounts(posts, config), close: () => posts.db.close() };
}

/** import, and tools such as the benchmarks: every service, none of the server's loops. */
export interface ToolJob extends Core {
  close(): Promise<void>;
}

export async function openToolJob(config: Config, log: Logger): Promise<ToolJob> {
  const core = await openCore(config, log);
  return { ...core, close: () => closeCore(core) };
}

/** tag: the tag jobs on SQLite alone (read-only: the server runs them). */
export interface TagJobsJob {
  jobs: TagJobRepository;
  close(): void;
}

export function openTagJobsJob(config: Config): TagJobsJob {
  const db = openDatabase(config.dataDir);
  return { jobs: new TagJobRepository(db), close: () => db.close() };
}
/** The media store MEDIA_STORE names, for restore (close it when done). */
export const openMediaStoreJob = (config: Config, log: Logger): MediaStore => createMediaStore(config, log);

/**
 * backup: the store in use (the one `imgpost media migrate` recorded, else MEDIA_STORE's), or
 * undefined for DATA_DIR/images. Refused while a migration copies: the objects are in two stores.
 */
export function openActiveMediaStoreJob(config: Config, log: Logger): MediaStore | undefined {
  // No database (yet): nothing recorded, and the backup itself says what is wrong.
  if (!fs.existsSync(path.join(config.dataDir, DATABASE_FILE)))
    return config.s3 ? createMediaStore(config, log) : undefined;
  const db = openDatabase(config.dataDir);
  try {
    const state = new MediaStoreStates(db).get();
    if (state?.migratingFrom !== undefined)
      throw new Error(
        `a media migration from ${state.migratingFrom} to ${state.active} is under way: finish it (imgpost media migrate --to ${state.active}) before a backup`,
      );
    const name = state?.active ?? (config.s3 ? undefined : 'local');
    if (name === 'local') return undefined;
    return name === undefined ? createMediaStore(config, log) : openMediaStoreNamed(config, log, name);
  } finally {
    db.close();
  }
}

/**
 * media migrate: the post table, the journal, the recorded store and the stores by name (SQLite and the stores; no
 * Elasticsearch).
 */
export interface MediaMigrationJob extends MigrationDeps {
  close(): void;
}

export function openMediaMigrationJob(config: Config, log: Logger): MediaMigrationJob {
  const posts = wirePosts(openDatabase(config.dataDir));
  const stores = wireMediaStores(config, log, posts.db);
  return {
    db: posts.db,
    posts: posts.postRepository,
    states: new MediaStoreStates(posts.db),
    pending: new PendingFiles(posts.db),
    stores,
    close() {
      stores.close();
      posts.db.close();
    },
  };
}
