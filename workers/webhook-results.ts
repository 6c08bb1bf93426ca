/**
 * Worker thread: writes the webhook dispatcher's delivery results on a connection of its own (see
 * src/webhooks/result-thread.ts for why). Started by the dispatcher, on whatever thread that runs;
 * the schema is already up to date.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/db/sqlite.ts';
import { serveHelper } from '../src/webhooks/helper-thread.ts';
import type { RecordBatch, RecordedStates } from '../src/webhooks/result-thread.ts';
import { WebhookRepository } from '../src/webhook-store/webhook-repository.ts';

if (!parentPort) throw new Error('workers/webhook-results.ts runs as a worker thread');
const db = openDatabase((workerData as { dataDir: string }).dataDir);
const repo = new WebhookRepository(db);

serveHelper<RecordBatch, RecordedStates>(
  parentPort,
  // A busy database throws: the dispatcher keeps the batch and tries again.
  (m) =>
    repo.recordResults(m.results, m.claimant, {
      suspendAfter: m.suspendAfter,
      retryDelayMs: (n) => m.retryDelaysMs[Math.min(n, m.retryDelaysMs.length) - 1],
    }),
  () => db.close(),
);
