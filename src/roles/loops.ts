import type { Config } from '../config.ts';
import { ClusterWatcher } from '../health/cluster-watcher.ts';
import type { Logger } from '../log.ts';
import type { Retention } from '../webhooks/retention.ts';
import { IndexRetirement } from '../search/retirement.ts';
import { Loop } from '../util/loop.ts';
import type { Core } from './wiring.ts';

/** How often the server looks for a posts index a reindex (another process) has left to retire. */
const RETIRE_POLL_MS = 1000;

/** One background loop of the server: started once at start-up, stopped at shutdown. */
export interface BackgroundLoop {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/** What the loops are built from: the wired services and the server's own retention runner. */
export type LoopParts = Core & { retention: Retention };

interface LoopSpec {
  /** as in docs/architecture.md's loop table (test/foundation/loops.test.ts holds the two equal) */
  name: string;
  /** undefined: switched off by the configuration */
  make(core: LoopParts, config: Config, log: Logger): BackgroundLoop | undefined;
}

const loop = (name: string, runner: { start(): void; stop(): Promise<void> }): BackgroundLoop => ({
  name,
  start: () => runner.start(),
  stop: () => runner.stop(),
});

/**
 * Every background loop of the server, in start order (stopped in the reverse order): the one list
 * the server role runs and the docs' table is checked against. CLI jobs run none of them; what they
 * leave in a durable queue is found by these loops' polls.
 */
export const LOOPS: readonly LoopSpec[] = [
  { name: 'outbox relay', make: (core) => loop('outbox relay', core.relay) },
  { name: 'webhook dispatcher', make: (core) => loop('webhook dispatcher', core.webhookDispatcher) },
  {
    name: 'thumbnailer',
    make: (core, config) => (config.backgroundThumbnails ? loop('thumbnailer', core.thumbnailer) : undefined),
  },
  {
    // New posts' descriptors and the backfill's (posts.robust IS NULL is its durable cursor).
    name: 'robust descriptors',
    make: (core, config) =>
      config.robustDescriptors.enabled ? loop('robust descriptors', core.descriptors.loop) : undefined,
  },
  // MD5 and size of posts from before migration 020 (posts.md5 IS NULL is its durable cursor).
  { name: 'file facts', make: (core) => loop('file facts', core.fileFacts) },
  // The eight symmetries' hashes of posts from before migration 025 (posts.dihedral IS NULL is its durable cursor).
  { name: 'dihedral hashes', make: (core) => loop('dihedral hashes', core.dihedralHashes) },
  // Resumes any implication job a crash or stop interrupted (its cursor is durable).
  { name: 'implication jobs', make: (core) => loop('implication jobs', core.implicationRunner.loop) },
  { name: 'retention', make: (core) => loop('retention', core.retention) },
  {
    // The posts indices `imgpost reindex` replaced: closed, then deleted, as each step falls due.
    name: 'index retirement',
    make: (core, _config, log) => {
      const retirement = new IndexRetirement({ postsIndex: core.postsIndex, db: core.db, log });
      return loop(
        'index retirement',
        new Loop({
          pass: async () => {
            const { nextAt } = await retirement.pass();
            return nextAt === undefined ? undefined : Math.max(50, nextAt - Date.now());
          },
          intervalMs: RETIRE_POLL_MS,
          firstDelayMs: 0,
          log,
          failureMessage: 'retiring a previous posts index failed; retrying',
          logEveryFailures: 10,
        }),
      );
    },
  },
  {
    // Deletes that failed and objects of uploads that failed while the store was down (journaled in
    // pending_files) are retried here, not only at the next start.
    name: 'media sweep',
    make: (core, config, log) =>
      loop(
        'media sweep',
        new Loop({
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
        }),
      ),
  },
  {
    name: 'cluster watcher',
    make: (core, _config, log) => loop('cluster watcher', new ClusterWatcher(core.postsIndex, log)),
  },
];

/** The loops this configuration runs, built (not started) from the wired services. */
export function serverLoops(core: LoopParts, config: Config, log: Logger): BackgroundLoop[] {
  return LOOPS.flatMap((spec) => spec.make(core, config, log) ?? []);
}
