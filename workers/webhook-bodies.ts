/**
 * Worker thread: reads events and renders their bodies ahead of the webhook dispatcher's sends, on a
 * connection of its own (see src/webhooks/body-thread.ts for why). Started by the dispatcher, on
 * whatever thread that runs; the schema is already up to date.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/db/sqlite.ts';
import { Outbox } from '../src/kernel/outbox.ts';
import type { BodiesRequest, PreparedBodies } from '../src/webhooks/body-thread.ts';
import { signBody } from '../src/webhooks/attempt.ts';
import { EventBodies } from '../src/webhooks/event-bodies.ts';
import { serveHelper } from '../src/webhooks/helper-thread.ts';

if (!parentPort) throw new Error('workers/webhook-bodies.ts runs as a worker thread');
const db = openDatabase((workerData as { dataDir: string }).dataDir);
const events = new EventBodies(new Outbox(db));

serveHelper<BodiesRequest, PreparedBodies>(
  parentPort,
  ({ template, secret, mediaUrl, items }) =>
    items.map(([outboxId, initiatorName]) => {
      const row = events.row(outboxId);
      // Not sent (the sending thread releases it), or gone: the sending thread sees for itself.
      if (!row || row.event === 'reindex') return null;
      try {
        const body = events.body(row, initiatorName, template, mediaUrl);
        return { event: row.event, postId: row.postId, body, signature: signBody(body, secret) };
      } catch {
        // A template error is reported by the sending thread, which renders it again.
        return null;
      }
    }),
  () => db.close(),
);
