/**
 * The dispatcher's delivery results, written in batches a few milliseconds behind the sends.
 *
 * Why batched: a lane sends a webhook's deliveries back to back, and one write transaction per
 * send took the database's one write lock hundreds of times a second under load. Results are
 * kept in the order they happened and written together, WRITE_DELAY_MS after the first of them,
 * or at once when the dispatcher needs them on record (before claiming again, when idle, when
 * stopping). A crash loses only the last few milliseconds of results, which delivery at least
 * once allows: those deliveries are sent again with the same id.
 */
import type { Logger } from '../log.ts';
import type { DeliveryResult, WebhookRepository } from '../webhook-store/webhook-repository.ts';

export const SUSPEND_AFTER_FAILURES = 3;

/** Results are written together, this long after the first of them (or at once when the dispatcher idles or stops). */
const WRITE_DELAY_MS = 50;
/** After a write that found the database locked, the next try. */
const RETRY_WRITE_MS = 1000;

/** What is logged about an attempt once its result is on record. */
export type AttemptLog = Record<string, unknown> & { outcome: 'success' | 'failure' };

export interface ResultWriterDeps {
  repo: WebhookRepository;
  /** The dispatcher's claimant id: results of deliveries it no longer holds are not written. */
  claimant: string;
  log: Logger;
  /** Delay before retry n (1-based, = consecutive failures so far); read at every write. */
  retryDelayMs: (failures: number) => number;
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
      this.write();
    }, WRITE_DELAY_MS);
  }

  /** Writes every pending result in one transaction, in the order they happened. */
  write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.results.length === 0) return;
    // Each running lane's lease moves on to the delivery it is sending or about to send, in the
    // same transaction that records the ones before it: the webhook's head is always leased.
    this.results.push(...this.deps.holds());
    const results = this.results;
    const logs = this.logAfterWrite;
    let states: ReturnType<WebhookRepository['recordResults']>;
    try {
      states = this.deps.repo.recordResults(results, this.deps.claimant, {
        suspendAfter: SUSPEND_AFTER_FAILURES,
        retryDelayMs: this.deps.retryDelayMs,
      });
    } catch (err) {
      // Another process holds the write lock past the busy timeout: keep them and try again.
      this.deps.log.warn('webhook dispatcher could not record delivery results yet', {
        err: (err as Error).message,
        results: results.length,
      });
      this.timer = setTimeout(() => this.write(), RETRY_WRITE_MS);
      return;
    }
    this.results = [];
    this.logAfterWrite = [];
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
