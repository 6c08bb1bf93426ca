import { loadConfig, type Config } from '../config.ts';
import { acquireOwnerLock, type OwnerLock } from '../db/owner-lock.ts';
import { openDatabase } from '../db/sqlite.ts';
import { createLogger, type Logger } from '../log.ts';
import { Retention } from '../webhooks/retention.ts';
import { readPostsMapping } from '../elasticsearch/posts-index.ts';
import { claimantGone } from '../thumbnails/thumbnailer.ts';
import { relyingParty } from '../passkeys/service.ts';
import { openSearch } from './search-parts.ts';
import { serverLoops } from './loops.ts';
import { closeCore, wireCore, type Core } from './wiring.ts';

/**
 * The server role (docs/decisions.md §13): the one process that owns a DATA_DIR. Besides the services the
 * HTTP app needs, it alone runs start-up recovery and the background loops: the outbox relay, the
 * background loops of src/roles/loops.ts, the one list of them. `npm start` (src/main.ts) and the test
 * apps both start a server here, so they run the same start-up checks. CLI commands use
 * src/roles/jobs.ts instead.
 */
export interface Services extends Core {
  ownerLock: OwnerLock;
  retention: Retention;
  /** the names of the background loops running, in start order (src/roles/loops.ts) */
  loops: string[];
  /** Stops background work and closes every resource, in reverse order of opening; releases the lock last. */
  close(): Promise<void>;
}

/**
 * Takes the DATA_DIR's owner lock (throws DataDirOwnedError naming the running server), recovers
 * from an interrupted run, and starts the background work. The caller listens (createApp + listen)
 * and records its URL with `ownerLock.describe(url)`.
 */
export async function startServer(
  config: Config = loadConfig(),
  log: Logger = createLogger(config.logLevel, undefined, { batched: true }),
): Promise<Services> {
  // First, before anything slow or anything that touches files: a second server fails at once.
  const ownerLock = acquireOwnerLock(config.dataDir);
  let core: Core;
  try {
    const search = await openSearch(config, log);
    core = wireCore(config, log, openDatabase(config.dataDir), search);
  } catch (err) {
    ownerLock.release();
    throw err;
  }

  // Only the owner may do this: uploads of a live server are in DATA_DIR/tmp and pending_files.
  // With S3 this also retries deletes that failed; a store that is down leaves its rows for the background sweep.
  const recovered = await core.images.recover();
  if (recovered.removed > 0 || recovered.failed > 0)
    log.warn('removed image files left by an interrupted write', recovered);
  // Expired direct-upload grants, those a crash interrupted included (no claim is in flight before we listen).
  const grants = await core.directUploads.sweep(0);
  if (grants.removed > 0 || grants.failed > 0) log.warn('removed direct uploads never made into posts', grants);
  // `imgpost media migrate` recorded the store in use; MEDIA_STORE only names where a new DATA_DIR starts.
  const inUse = core.images.stores.activeName();
  if (inUse !== core.images.stores.configured)
    log.warn(
      `using the media store ${inUse}, recorded by imgpost media migrate; MEDIA_STORE names ${core.images.stores.configured}: set it to ${inUse}`,
    );
  // Thumbnail jobs a crashed process had claimed would otherwise wait for their lease (minutes).
  const released = core.thumbnailQueue.releaseClaims(claimantGone);
  if (released > 0) log.info('took back thumbnail jobs claimed by a process that is gone', { jobs: released });
  // Tags from before migration 008 get their case-folded key (JavaScript's folding, not SQLite's).
  const folded = core.tagRepository.foldMissing();
  if (folded > 0) log.info('case-folded tag names for the tag search', { tags: folded });

  // Browsers take only a domain as WebAuthn relying party: say once why passkeys answer 409.
  const rp = relyingParty(config.publicUrl);
  if ('refused' in rp) log.warn(`passkeys are off: ${rp.refused}`);

  // Templates saved before today's template rules (docs/decisions.md §8): named once, kept as they are.
  for (const refused of core.webhooks.refusedTemplates()) {
    log.warn(
      'a saved webhook template is refused by the template rules: its deliveries fail as template errors',
      refused,
    );
  }

  await indexStartupChecks(core, config, log);

  const retention = new Retention(core);
  const loops = serverLoops({ ...core, retention }, config, log);
  for (const loop of loops) loop.start();

  return {
    ...core,
    ownerLock,
    retention,
    loops: loops.map((l) => l.name),
    async close() {
      for (const loop of [...loops].reverse()) await loop.stop();
      await closeCore(core);
      ownerLock.release();
    },
  };
}

/** Start-up checks of the posts index: both say at once what would otherwise show as failing searches. */
async function indexStartupChecks(core: Core, config: Config, log: Logger): Promise<void> {
  // ELASTICSEARCH_REPLICAS is a dynamic index setting: a changed value takes effect on restart, no reindex.
  const changed = await core.postsIndex.applyReplicas().catch((err: Error) => {
    log.warn('could not apply ELASTICSEARCH_REPLICAS to the posts index', { err: err.message });
    return [];
  });
  if (changed.length > 0)
    log.info('applied ELASTICSEARCH_REPLICAS to the posts index', {
      indices: changed,
      replicas: config.elasticsearch.replicas,
    });
  // An index built by an older release lacks fields or field types this one queries (mapping v3: the
  // positional text_grams of text search).
  const built = await core.postsIndex.builtMappingVersion().catch(() => undefined);
  if (built !== undefined && built < readPostsMapping().mappingVersion) {
    log.warn('the posts index was built for an older mapping: run `imgpost reindex`', {
      built,
      current: readPostsMapping().mappingVersion,
    });
  }
}
