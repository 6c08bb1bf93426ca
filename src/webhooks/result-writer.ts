/**
 * The dispatcher's delivery results, written in batches a few milliseconds behind the sends, on a
 * thread of their own (result-thread.ts).
 *
 * Why batched: a lane sends a webhook's deliveries back to back, and one write transaction per
 * send took the database's one write lock hundreds of times a second under load. Results are
 * kept in the order they happened and handed over together, WRITE_DELAY_MS after the first of
 * them, or at once when the dispatcher needs them on record (before claiming again, when idle, when
 * stopping: write() resolves once everything handed over before it is written). One batch is
 * written at a time, so batches are recorded in the order they were made. A crash loses only the
 * results not yet committed, which delivery at least once allows: those deliveries are sent again
 * with the same id.
 */
import type { Logger } from '../log.ts';
import type { DeliveryResult } from '../webhook-store/webhook-repository.ts';
import type { RecordedStates, ResultThread } from './result-thread.ts';

export const SUSPEND_AFTER_FAILURES = 3;

/** Results are handed over together, this long after the first of them (or at once when they must be on record). */
const WRITE_DELAY_MS = 50;
/** After a write that found the database locked, the next try. */
const RETRY_WRITE_MS = 1000;

/** What is logged about an attempt once its result is on record. */
export type AttemptLog = Record<string, unknown> & { outcome: 'success' | 'failure' };

export interface ResultWriterDeps {
  results: ResultThread;
  /** The dispatcher's claimant id: results of deliveries it no longer holds are not written. */
  claimant: string;
  log: Logger;
  /** Delays before retry n (1-based, = consecutive failures so far; the last repeats); read at every write. */
  retryDelaysMs: () => number[];
  /** The leases of the lanes still sending, written along with the results (see write()). */
  holds: () => DeliveryResult[];
  /** A write recorded a failure: a retry was scheduled (or a suspension dropped a queue). */
  onFailureRecorded: () => void;
}

export class ResultWriter {
  /** Results not yet written, in the order they happened. */
  private results: DeliveryResult[] = [];
  /** One entry per 'attempt' result above, in the same order. */
  private logAfterWrite: AttemptLog[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The batch being written, if any. */
  private writing: Promise<void> | undefined;

  constructor(private readonly deps: ResultWriterDeps) {}

  /** A delivery handed back unsent: it stays pending, with no attempt on record. */
  release(seq: number): void {
    this.results.push({ kind: 'release', seq });
  }

  /** An attempt's result, and what to log about it once written. */
  attempt(result: Extract<DeliveryResult, { kind: 'attempt' }>, log: AttemptLog): void {
    this.results.push(result);
    this.logAfterWrite.push(log);
  }

  /** Writes soon, with whatever else comes in meanwhile. */
  schedule(): void {
    if (this.timer || this.results.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, WRITE_DELAY_MS);
  }

  /**
   * Writes every pending result in one transaction, in the order they happened, after the batch
   * being written (if any). Resolves once they are written, or kept for a retry when they could
   * not be (it never rejects).
   */
  async write(): Promise<void> {
    while (this.writing) await this.writing;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.results.length === 0) return;
    this.writing = this.writeBatch();
    await this.writing;
    this.writing = undefined;
  }

  private async writeBatch(): Promise<void> {
    // Each running lane's lease moves on to the delivery it is sending or about to send, in the
    // same transaction that records the ones before it: the webhook's head is always leased.
    this.results.push(...this.deps.holds());
    const results = this.results;
    const logs = this.logAfterWrite;
    this.results = [];
    this.logAfterWrite = [];
    let states: RecordedStates;
    try {
      states = await this.deps.results.call({
        results,
        claimant: this.deps.claimant,
        suspendAfter: SUSPEND_AFTER_FAILURES,
        retryDelaysMs: this.deps.retryDelaysMs(),
      });
    } catch (err) {
      // Another process holds the write lock past the busy timeout: keep them, ahead of what came
      // meanwhile, and try again.
      this.deps.log.warn('webhook dispatcher could not record delivery results yet', {
        err: (err as Error).message,
        results: results.length,
      });
      this.results = results.concat(this.results);
      this.logAfterWrite = logs.concat(this.logAfterWrite);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.write(), RETRY_WRITE_MS);
      return;
    }
    let failures = false;
    for (const [i, r] of results.entries()) {
      if (r.kind !== 'attempt') continue;
      const fields = logs.shift()!;
      if (fields.outcome === 'success') this.deps.log.debug('webhook delivered', fields);
      else if (states[i] === 'suspended') this.deps.log.warn('webhook suspended after consecutive failures', fields);
      else this.deps.log.info('webhook delivery failed; will retry', fields);
      failures ||= fields.outcome === 'failure';
    }
    if (failures) this.deps.onFailureRecorded();
  }
}
