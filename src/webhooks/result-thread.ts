/**
 * The dispatcher's result writes on a thread of their own (workers/webhook-results.ts), with their own
 * SQLite connection.
 *
 * Why: the dispatcher's thread is CPU-bound under a backlog, and a batch's write (the statements, the
 * commit, now and then a checkpoint) is work the sends had to wait for. Here the lanes go on while a
 * batch commits on the other thread. What the rules need stays with the dispatcher: it hands batches
 * over one at a time, in the order the results happened, and waits for what it handed over before
 * claiming again, going idle or stopping (result-writer.ts), so a claim never sees a webhook's head
 * as it was before results the dispatcher already has. A batch is on record once this thread's
 * transaction commits; a crash before that loses only results, whose deliveries are sent again (at
 * least once, as before). A batch the thread could not write (a busy database, the thread gone) is
 * kept and tried again.
 */
import type { DeliveryResult, WebhookState } from '../webhook-store/webhook-repository.ts';
import { HelperThread } from './helper-thread.ts';

/** One batch: WebhookRepository.recordResults's arguments, the retry delays as a list (a function cannot cross). */
export interface RecordBatch {
  results: DeliveryResult[];
  claimant: string;
  suspendAfter: number;
  /** Delay before retry n (1-based); the last entry repeats. */
  retryDelaysMs: number[];
}

/** The webhook state after each attempt, as recordResults answers. */
export type RecordedStates = (WebhookState | undefined)[];

export type ResultThread = HelperThread<RecordBatch, RecordedStates>;

export const resultThread = (workerFile: string, dataDir: string): ResultThread =>
  new HelperThread(workerFile, { dataDir });
