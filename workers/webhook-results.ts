/**
 * Worker thread: writes the webhook dispatcher's delivery results on a connection of its own (see
 * src/webhooks/result-thread.ts for why and for the messages). Started by the dispatcher, on whatever
 * thread that runs; the schema is already up to date.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/db/sqlite.ts';
import type { FromResults, ToResults } from '../src/webhooks/result-thread.ts';
import { WebhookRepository } from '../src/webhook-store/webhook-repository.ts';

const port = parentPort;
if (!port) throw new Error('workers/webhook-results.ts runs as a worker thread');
const db = openDatabase((workerData as { dataDir: string }).dataDir);
const repo = new WebhookRepository(db);

port.on('message', (m: ToResults) => {
  if (m.type === 'close') {
    db.close();
    port.close();
    return;
  }
  const delays = m.retryDelaysMs;
  let answer: FromResults;
  try {
    const states = repo.recordResults(m.results, m.claimant, {
      suspendAfter: m.suspendAfter,
      retryDelayMs: (n) => delays[Math.min(n, delays.length) - 1],
    });
    answer = { id: m.id, states };
  } catch (err) {
    // A busy database, say: the dispatcher keeps the batch and tries again.
    answer = { id: m.id, error: (err as Error).message };
  }
  port.postMessage(answer);
});
