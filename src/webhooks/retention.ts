import type { Db } from '../db/sqlite.ts';
import type { Logger } from '../log.ts';
import type { Outbox } from '../kernel/outbox.ts';
import { Loop } from '../util/loop.ts';
import type { WebhookRepository } from '../webhook-store/webhook-repository.ts';

export interface RetentionDeps {
  db: Db;
  outbox: Outbox;
  webhookRepository: WebhookRepository;
  log: Logger;
  config: { retentionDays: number; retentionAgeMs?: number; retentionIntervalMs: number };
}

export interface RetentionPass {
  deliveries: number;
  outbox: number;
  attempts: number;
  /** pages given back to the file system by incremental vacuum */
  vacuumedPages: number;
}

/** Rows per delete: each batch is its own short transaction, so writers wait milliseconds at most. */
const BATCH = 500;
/** GET /api/webhook/[id]/deliveries shows this many; they are always kept. */
export const KEPT_ATTEMPTS = 50;
/** Pages given back per pass (4 KiB each); the rest waits for the next pass. */
const VACUUM_PAGES = 2_000;

const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Bounded growth (docs/decisions.md §13), run by the server in the background: settled webhook
 * deliveries, then indexed outbox rows no delivery references, then webhook attempts beyond the
 * latest 50 per webhook, once older than RETENTION_DAYS. Small batches with a yield between them.
 *
 * Vacuum strategy: new databases use `auto_vacuum = INCREMENTAL` (src/db/sqlite.ts); each pass
 * ends with `PRAGMA incremental_vacuum(2000)`, returning at most ~8 MB of freed pages to the
 * file system, so the file follows the live rows without a blocking full VACUUM. Older databases
 * (auto_vacuum NONE) reuse freed pages for new rows; `sqlite3 imgpost.sqlite 'PRAGMA
 * auto_vacuum=INCREMENTAL; VACUUM'` with the server stopped converts one.
 */
export class Retention {
  private running: Promise<RetentionPass> | undefined;
  private readonly loop: Loop;

  constructor(private readonly deps: RetentionDeps) {
    const every = deps.config.retentionIntervalMs;
    this.loop = new Loop({
      pass: async () => {
        await this.runOnce();
      },
      intervalMs: every,
      // Soon after start-up, so a server that restarts often still prunes.
      firstDelayMs: Math.min(5_000, every),
      log: deps.log,
      failureMessage: 'retention pass failed; retrying at the next',
    });
  }

  private ageMs(): number {
    return this.deps.config.retentionAgeMs ?? this.deps.config.retentionDays * 86_400_000;
  }

  /** One full pass; concurrent calls share it. */
  runOnce(): Promise<RetentionPass> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<RetentionPass> {
    const { outbox, webhookRepository: hooks, db } = this.deps;
    const before = new Date(Date.now() - this.ageMs()).toISOString();
    const result: RetentionPass = { deliveries: 0, outbox: 0, attempts: 0, vacuumedPages: 0 };
    const drain = async (step: () => number): Promise<number> => {
      let total = 0;
      for (;;) {
        const n = step();
        total += n;
        // Not running as the server's loop (a one-off runOnce) or stopping: one batch per step.
        if (n < BATCH || !this.loop.running) return total;
        await yieldToRequests();
      }
    };
    result.deliveries = await drain(() => hooks.pruneSettledDeliveries(before, BATCH));
    result.outbox = await drain(() => outbox.pruneIndexed(before, BATCH));
    for (const id of hooks.ids())
      result.attempts += await drain(() => hooks.pruneAttempts(id, before, KEPT_ATTEMPTS, BATCH));
    if ((db.pragma('auto_vacuum', { simple: true }) as number) === 2) {
      const free = db.pragma('freelist_count', { simple: true }) as number;
      if (free > 0) {
        db.pragma(`incremental_vacuum(${VACUUM_PAGES})`);
        result.vacuumedPages = free - (db.pragma('freelist_count', { simple: true }) as number);
      }
    }
    if (result.deliveries + result.outbox + result.attempts > 0) this.deps.log.debug('retention pass', { ...result });
    return result;
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    // A runOnce() of someone else's may still be under way.
    await this.running?.catch(() => undefined);
  }
}
