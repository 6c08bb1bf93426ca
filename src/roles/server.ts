import { loadConfig, type Config } from '../config.ts';
import { acquireOwnerLock, type OwnerLock } from '../db/owner-lock.ts';
import { openDatabase } from '../db/sqlite.ts';
import { createLogger, type Logger } from '../log.ts';
import { Retention } from '../webhooks/retention.ts';
import { IndexRetirement } from '../search/retirement.ts';
import { Loop } from '../util/loop.ts';
import { claimantGone } from '../thumbnails/thumbnailer.ts';
import { relyingParty } from '../passkeys/service.ts';
import { openSearch } from './search-parts.ts';
import { closeCore, wireCore, type Core } from './wiring.ts';

/** How often the server looks for a posts index a reindex (another process) has left to retire. */
const RETIRE_POLL_MS = 1000;

/**
 * The server role (docs/decisions.md §13): the one process that owns a DATA_DIR. Besides the services the
 * HTTP app needs, it alone runs start-up recovery and the background loops: the outbox relay, the
 * webhook dispatcher, the thumbnail runner, the robust descriptors, retention and the retirement of
 * replaced posts indices. CLI commands use src/roles/jobs.ts
 * instead.
 */
export interface Services extends Core {
  ownerLock: OwnerLock;
  retention: Retention;
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

  core.relay.start();
  core.webhookDispatcher.start();
  if (config.backgroundThumbnails) core.thumbnailer.start();
  const retention = new Retention(core);
  retention.start();
  // Robust descriptors: new posts' and the backfill's (posts.robust IS NULL is its durable cursor).
  if (config.robustDescriptors.enabled) core.descriptors.loop.start();
  // MD5 and size of posts from before migration 020 (posts.md5 IS NULL is its durable cursor).
  core.fileFacts.start();
  // Resumes any implication job a crash or stop interrupted (its cursor is durable).
  core.implicationRunner.loop.start();
  // Deletes that failed and objects of uploads that failed while the store was down (journaled in
  // pending_files) are retried here, not only at the next start.
  const mediaSweep = new Loop({
    pass: async () => {
      const swept = await core.images.sweep({ olderThanMs: config.mediaSweep.graceMs });
      if (swept.removed > 0 || swept.failed > 0) log.info('media sweep', swept);
      // Objects of expired direct-upload grants (never used, used, or a claim older than the grace: interrupted).
      const grants = await core.directUploads.sweep(config.mediaSweep.graceMs);
      if (grants.removed > 0 || grants.failed > 0) log.info('direct-upload sweep', grants);
    },
    intervalMs: config.mediaSweep.intervalMs,
    firstDelayMs: config.mediaSweep.intervalMs,
    log,
    failureMessage: 'media sweep failed',
  });
  mediaSweep.start();
  // The posts indices `imgpost reindex` replaced: closed, then deleted, as each step falls due.
  const retirement = new IndexRetirement({ postsIndex: core.postsIndex, db: core.db, log });
  const retireLoop = new Loop({
    pass: async () => {
      const { nextAt } = await retirement.pass();
      return nextAt === undefined ? undefined : Math.max(50, nextAt - Date.now());
    },
    intervalMs: RETIRE_POLL_MS,
    firstDelayMs: 0,
    log,
    failureMessage: 'retiring a previous posts index failed; retrying',
    logEveryFailures: 10,
  });
  retireLoop.start();

  return {
    ...core,
    ownerLock,
    retention,
    async close() {
      await core.implicationRunner.loop.stop();
      await core.descriptors.loop.stop();
      await core.fileFacts.stop();
      await mediaSweep.stop();
      await retireLoop.stop();
      await retention.stop();
      await core.thumbnailer.stop();
      await core.webhookDispatcher.stop();
      await core.relay.stop();
      await closeCore(core);
      ownerLock.release();
    },
  };
}
