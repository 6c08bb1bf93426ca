import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import type { WebhookRepository } from './repository.ts';

/**
 * Queues deliveries in each post change's transaction, then calls `wake` after the commit. Runs
 * where the change is made (any process, any role); the server's dispatcher sends them.
 */
export function attachFanOut(outbox: Outbox, repo: WebhookRepository, wake: () => void): void {
  outbox.subscribe((row: OutboxRow) => {
    // No initiator means no API call made the change (an import): decisions §8 fires events
    // for POST/PUT/PATCH/DELETE only, and a bulk import must not flood every receiver.
    if (row.event === 'reindex' || row.initiatorId === null) return;
    // better-sqlite3 transactions are synchronous: by the time this runs, the change has
    // committed (or rolled back, and then there is simply nothing new to send).
    if (repo.enqueue(row) > 0) setImmediate(wake);
  });
}
