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
 * least once, as before).
 *
 * The thread starts with the dispatcher and ends with it; one that dies is started again by the next
 * batch (the batch it was writing is kept and retried, like one that found the database locked).
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerExecArgv } from '../util/worker-exec-argv.ts';
import type { DeliveryResult, WebhookState } from '../webhook-store/webhook-repository.ts';

/**
 * The worker's file when the dispatcher runs from the TypeScript sources. A compiled dispatcher thread
 * passes the compiled one beside its own file (workers/webhook-dispatcher.ts): this URL is resolved
 * against the module's bundle, which for that thread is not the directory the workers are in.
 */
const WORKER = new URL('../../workers/webhook-results.ts', import.meta.url).pathname;

/** Messages to the worker. */
export type ToResults =
  | {
      type: 'record';
      id: number;
      results: DeliveryResult[];
      claimant: string;
      suspendAfter: number;
      /** Delay before retry n (1-based); the last entry repeats. */
      retryDelaysMs: number[];
    }
  | { type: 'close' };

/** Messages from the worker: a batch's states (as recordResults answers them) or why it was not written. */
export type FromResults = { id: number; states: (WebhookState | undefined)[] } | { id: number; error: string };

export type RecordBatch = Omit<Extract<ToResults, { type: 'record' }>, 'type' | 'id'>;

export class ResultThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (s: (WebhookState | undefined)[]) => void; reject: (e: Error) => void }
  >();

  constructor(
    private readonly dataDir: string,
    private readonly file: string = WORKER,
  ) {}

  /** Starts the thread now rather than with the first batch (its start-up is not a batch's cost). */
  start(): void {
    this.worker ??= this.spawn();
  }

  /** Writes one batch in one transaction; resolves once it is committed, rejects when it was not written. */
  record(batch: RecordBatch): Promise<(WebhookState | undefined)[]> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const message: ToResults = { type: 'record', id, ...batch };
      worker.postMessage(message);
    });
  }

  /** Ends the thread once it has written what it was given. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ type: 'close' } satisfies ToResults);
    await exited;
  }

  private spawn(): Worker {
    // A TypeScript worker goes through the entry beside it (workers/ts-entry.cjs says why); a compiled one runs as is.
    const ts = this.file.endsWith('.ts');
    const worker = ts
      ? new Worker(path.join(path.dirname(this.file), 'ts-entry.cjs'), {
          execArgv: workerExecArgv(this.file),
          workerData: { entry: this.file, dataDir: this.dataDir },
        })
      : new Worker(this.file, { workerData: { dataDir: this.dataDir } });
    worker.on('message', (m: FromResults) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if ('error' in m) w?.reject(new Error(m.error));
      else w?.resolve(m.states);
    });
    // Reported through the batches it leaves unwritten (result-writer.ts logs and retries them).
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.reject(new Error('the webhook result thread exited'));
      }
    });
    return worker;
  }
}
