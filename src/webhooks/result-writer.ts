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

/** A success as the lane hands it over. */
export interface Success {
  seq: number;
  deliveryId: string;
  webhookId: string;
  event: string;
  postId: string;
  status: number;
  durationMs: number;
  /** when it was attempted (ms since the epoch) */
  at: number;
}

export class ResultWriter {
  /** Results not yet written, in the order they happened; the run of successes after them is `run`. */
  private results: DeliveryResult[] = [];
  /**
   * The successes since the last other result, as the JSON text the batch's statements read
   * (SuccessRun): appending to a string costs the sending thread less than an object per delivery,
   * and the run crosses to the result thread as one string.
   */
  private run = '';
  private runCount = 0;
  /** Each webhook's last success in `run` (its tally after the run). */
  private runHooks = new Map<string, [string, string, number | null]>();
  /** One entry per 'attempt' result above, in the same order. */
  private logAfterWrite: AttemptLog[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The batch being written, if any. */
  private writing: Promise<void> | undefined;

  constructor(private readonly deps: ResultWriterDeps) {}

  /** A delivery handed back unsent: it stays pending, with no attempt on record. */
  release(seq: number): void {
    this.endRun();
    this.results.push({ kind: 'release', seq });
  }

  /** A successful attempt (logged at debug level, a line per batch, once written). */
  success(s: Success): void {
    const at = new Date(s.at).toISOString();
    // Every value is a number or a string that needs no escaping (ids, an event name, an ISO time).
    this.runCount++;
    this.run += `${this.run ? ',' : ''}[${s.seq},"${at}","${s.deliveryId}","${s.webhookId}","${s.event}","${s.postId}",${s.status},${s.durationMs}]`;
    this.runHooks.set(s.webhookId, [s.webhookId, at, s.status]);
  }

  /** An attempt that did not succeed (success() takes those), and what to log about it once written. */
  attempt(result: Extract<DeliveryResult, { kind: 'attempt' }>, log: AttemptLog): void {
    this.endRun();
    this.results.push(result);
    this.logAfterWrite.push(log);
  }

  /** Closes the run of successes: what comes next goes after it. */
  private endRun(): void {
    if (!this.run) return;
    this.results.push({
      kind: 'successes',
      json: `[${this.run}]`,
      count: this.runCount,
      hooks: [...this.runHooks.values()],
    });
    this.run = '';
    this.runCount = 0;
    this.runHooks.clear();
  }

  /** Writes soon, with whatever else comes in meanwhile. */
  schedule(): void {
    if (this.timer || (this.results.length === 0 && !this.run)) return;
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
    this.endRun();
    if (this.results.length === 0) return;
    this.writing = this.writeBatch();
    await this.writing;
    this.writing = undefined;
  }

  private async writeBatch(): Promise<void> {
    // Each running lane's lease moves on to the delivery it is sending or about to send, in the
    // same transaction that records the ones before it: the webhook's head is always leased.
    this.endRun();
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
    let delivered = 0;
    for (const [i, r] of results.entries()) {
      if (r.kind === 'successes') delivered += r.count;
      if (r.kind !== 'attempt') continue;
      const fields = logs.shift()!;
      if (fields.outcome === 'success') this.deps.log.debug('webhook delivered', fields);
      else if (states[i] === 'suspended') this.deps.log.warn('webhook suspended after consecutive failures', fields);
      else this.deps.log.info('webhook delivery failed; will retry', fields);
      failures ||= fields.outcome === 'failure';
    }
    if (delivered > 0) this.deps.log.debug('webhook deliveries recorded', { delivered });
    if (failures) this.deps.onFailureRecorded();
  }
}
