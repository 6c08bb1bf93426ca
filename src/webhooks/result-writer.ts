/**
 * The dispatcher's delivery results, written in batches a few milliseconds behind the sends, one
 * transaction per batch on the dispatcher's own connection.
 *
 * Why batched: a lane sends a webhook's deliveries back to back, and one write transaction per
 * send took the database's one write lock hundreds of times a second under load. Results are
 * kept in the order they happened and written together, WRITE_DELAY_MS after the first of them, or
 * at once when the dispatcher needs them on record (before claiming again, when idle, when
 * stopping), so batches are recorded in the order they were made. A crash loses only the results
 * not yet committed, which delivery at least once allows: those deliveries are sent again with the
 * same id. (Sessions 30 to 35 wrote them on a thread of their own; on one thread the drain went
 * faster, see bodies-ahead.ts.)
 */
import type { Logger } from '../log.ts';
import type { DeliveryResult, SuccessRunOfHook, WebhookState } from '../webhook-store/webhook-repository.ts';

export const SUSPEND_AFTER_FAILURES = 3;

/** Results are handed over together, this long after the first of them (or at once when they must be on record). */
const WRITE_DELAY_MS = 50;
/** After a write that found the database locked, the next try. */
const RETRY_WRITE_MS = 1000;

/** What is logged about a failed attempt once its result is on record. */
export type AttemptLog = Record<string, unknown> & { outcome: 'failure' };

export interface ResultWriterDeps {
  /**
   * Writes a batch in one transaction (WebhookRepository.recordResults, with the dispatcher's claim
   * and retry delays) and answers the webhook's state after each attempt; throws when the database
   * stays locked.
   */
  record: (results: DeliveryResult[]) => (WebhookState | undefined)[];
  log: Logger;
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

/**
 * A webhook's run of successes while it is being built: the last one kept as it came, the ones before
 * it already as text (see SuccessRunOfHook).
 */
interface HookRunBuilding {
  webhookId: string;
  last: SuccessRunOfHook['last'];
  earlier: string;
  count: number;
}

/**
 * A run's row holds at most this many successes of a webhook: a batch is normally a few hundred, but results held
 * back while the database is locked keep coming, and owners read the latest 50 from one row.
 */
const MAX_RUN = 1000;

export class ResultWriter {
  /**
   * Results not yet written, in the order they happened; the run of successes after them is in `delivered` and
   * `runHooks`.
   */
  private results: DeliveryResult[] = [];
  /**
   * The successes since the last other result, as text (SuccessRun): appending to strings costs less
   * than an object per delivery, and the statements take the text as it is.
   */
  private delivered = '';
  private runCount = 0;
  private runHooks = new Map<string, HookRunBuilding>();
  /** One entry per 'attempt' result above, in the same order. */
  private logAfterWrite: AttemptLog[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last success's time, and its ISO text. */
  private isoOf = Number.NaN;
  private iso = '';

  constructor(private readonly deps: ResultWriterDeps) {}

  /** A delivery handed back unsent: it stays pending, with no attempt on record. */
  release(seq: number): void {
    this.endRun();
    this.results.push({ kind: 'release', seq });
  }

  /** A successful attempt (logged at debug level, a line per batch, once written). */
  success(s: Success): void {
    // Many successes share a millisecond under a backlog.
    if (s.at !== this.isoOf) {
      this.isoOf = s.at;
      this.iso = new Date(s.at).toISOString();
    }
    const at = this.iso;
    // Every string is one that needs no escaping (ids, an event name, an ISO time).
    this.runCount++;
    this.delivered += `${this.delivered ? ',' : ''}[${s.seq},"${at}"]`;
    const last = {
      deliveryId: s.deliveryId,
      event: s.event,
      postId: s.postId,
      status: s.status,
      durationMs: s.durationMs,
      at,
    };
    const run = this.runHooks.get(s.webhookId);
    if (!run) {
      this.runHooks.set(s.webhookId, { webhookId: s.webhookId, last, earlier: '', count: 1 });
      return;
    }
    const p = run.last;
    run.earlier += `${run.earlier ? ',' : ''}["${p.deliveryId}","${p.event}","${p.postId}",${p.status},${p.durationMs},"${p.at}"]`;
    run.last = last;
    if (++run.count >= MAX_RUN) this.endRun();
  }

  /** An attempt that failed (success() takes the others), and what to log about it once written. */
  attempt(result: Extract<DeliveryResult, { kind: 'attempt' }>, log: AttemptLog): void {
    this.endRun();
    this.results.push(result);
    this.logAfterWrite.push(log);
  }

  /** Closes the run of successes: what comes next goes after it. */
  private endRun(): void {
    if (!this.delivered) return;
    this.results.push({
      kind: 'successes',
      delivered: `[${this.delivered}]`,
      count: this.runCount,
      hooks: [...this.runHooks.values()],
    });
    this.delivered = '';
    this.runCount = 0;
    this.runHooks = new Map();
  }

  /** Writes soon, with whatever else comes in meanwhile. */
  schedule(): void {
    if (this.timer || (this.results.length === 0 && !this.delivered)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, WRITE_DELAY_MS);
  }

  /**
   * Writes every pending result in one transaction, in the order they happened. Resolves once they
   * are written, or kept for a retry when they could not be (it never rejects).
   */
  async write(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.endRun();
    if (this.results.length === 0) return;
    this.writeBatch();
  }

  private writeBatch(): void {
    // Each running lane's lease moves on to the delivery it is sending or about to send, in the
    // same transaction that records the ones before it: the webhook's head is always leased.
    this.results.push(...this.deps.holds());
    const results = this.results;
    const logs = this.logAfterWrite;
    this.results = [];
    this.logAfterWrite = [];
    let states: (WebhookState | undefined)[];
    try {
      states = this.deps.record(results);
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
      if (states[i] === 'suspended') this.deps.log.warn('webhook suspended after consecutive failures', fields);
      else this.deps.log.info('webhook delivery failed; will retry', fields);
      failures = true;
    }
    if (delivered > 0) this.deps.log.debug('webhook deliveries recorded', { delivered });
    if (failures) this.deps.onFailureRecorded();
  }
}
