/**
 * Writing what the dispatcher's sends came to: an attempt per send, the delivery settled or
 * rescheduled, the webhook's failure tally (and suspension). Spans all three webhook tables, in
 * one transaction per batch.
 */
import type { Db } from '../db/sqlite.ts';
import type { AttemptRow, AttemptTable, SuccessRunOfHook } from './attempts.ts';
import type { DeliveryRow, DeliveryTable } from './deliveries.ts';
import type { SubscriptionTable, WebhookState } from './subscriptions.ts';

/**
 * What the dispatcher hands back after sending: an attempt to record, a run of successes, or a claim
 * to give back unsent.
 */
export type DeliveryResult =
  | { kind: 'attempt'; delivery: DeliveryRow; attempt: AttemptRow }
  | SuccessRun
  | { kind: 'release'; seq: number }
  | { kind: 'hold'; seq: number; until: string };

/**
 * Successes in a row, the common case, as the dispatcher builds them while it sends (text rather
 * than an object per delivery): the deliveries to settle, as the JSON text deliveredAll reads
 * (an array of [delivery seq, attempted at]), and each webhook's run, stored as one attempt row.
 */
export interface SuccessRun {
  kind: 'successes';
  delivered: string;
  count: number;
  hooks: SuccessRunOfHook[];
}

export interface RecordOptions {
  suspendAfter: number;
  retryDelayMs: (failureCount: number) => number;
}

/** A webhook's row as a batch of results leaves it. */
interface HookTally {
  failureCount: number;
  state: WebhookState;
  lastDeliveryAt: string | null;
  lastResponseStatus: number | null;
}

export class ResultRecorder {
  constructor(
    private readonly db: Db,
    private readonly tables: { subscriptions: SubscriptionTable; deliveries: DeliveryTable; attempts: AttemptTable },
  ) {}

  /**
   * Records a batch of results in one transaction, in the order given (the order they happened:
   * a success resets the failure count the next failure adds to). Leases are released or moved
   * on to a lane's next delivery in the same order. Returns the webhook state after each attempt
   * (undefined for releases and deleted webhooks).
   */
  record(results: readonly DeliveryResult[], claimant: string, opts: RecordOptions): (WebhookState | undefined)[] {
    const { subscriptions, deliveries } = this.tables;
    return this.db
      .transaction(() => {
        // Each webhook's row is read once and written once per batch, with its state after the
        // last of its attempts: nothing else reads it inside the transaction, so the outcome is
        // that of writing it after every attempt.
        const hooks = new Map<string, HookTally | null>();
        const states = results.map((r) => {
          if (r.kind === 'successes') {
            this.applySuccessRun(r, hooks);
            return undefined;
          }
          if (r.kind === 'attempt') return this.applyAttempt(r.delivery, r.attempt, opts, hooks);
          if (r.kind === 'hold') deliveries.hold(r.seq, claimant, r.until);
          else deliveries.release(r.seq, claimant);
          return undefined;
        });
        for (const [id, h] of hooks) if (h) subscriptions.writeTally(id, h);
        return states;
      })
      .immediate();
  }

  /** The webhook's tally as a batch of results leaves it; null when the webhook is gone (deleted meanwhile). */
  private hookOf(webhookId: string, hooks: Map<string, HookTally | null>): HookTally | null {
    let hook = hooks.get(webhookId);
    if (hook === undefined) {
      const row = this.tables.subscriptions.tally(webhookId);
      hook = row ? { ...row, lastDeliveryAt: null, lastResponseStatus: null } : null;
      hooks.set(webhookId, hook);
    }
    return hook;
  }

  /**
   * A run of successes, the common case: one statement settles its deliveries, and each webhook's
   * attempts are one row. A webhook deleted meanwhile (its deliveries with it) gets no row, and the
   * statement finds none of its deliveries.
   */
  private applySuccessRun(run: SuccessRun, hooks: Map<string, HookTally | null>): void {
    for (const r of run.hooks) {
      const hook = this.hookOf(r.webhookId, hooks);
      if (!hook) continue;
      hook.failureCount = 0;
      hook.lastDeliveryAt = r.last.at;
      hook.lastResponseStatus = r.last.status;
      this.tables.attempts.insertRun(r);
    }
    this.tables.deliveries.deliveredAll(run.delivered);
  }

  /**
   * One attempt and its consequences. Success: delivered, failure count reset. Failure: the
   * webhook's consecutive count goes up; below `suspendAfter` the same delivery is retried later;
   * at it the webhook is suspended, this delivery is `failed` and everything else queued for it is
   * `dropped` (no invocations until re-activation, and re-activation starts with new events
   * rather than a stale backlog).
   */
  private applyAttempt(
    d: DeliveryRow,
    a: AttemptRow,
    opts: RecordOptions,
    hooks: Map<string, HookTally | null>,
  ): WebhookState | undefined {
    const { deliveries, attempts } = this.tables;
    const hook = this.hookOf(d.webhookId, hooks);
    if (!hook) return undefined; // deleted meanwhile, with its deliveries
    const now = a.attemptedAt;
    attempts.insert(d.webhookId, a);
    const failures = a.outcome === 'success' ? 0 : hook.failureCount + 1;
    const suspend = failures >= opts.suspendAfter;
    Object.assign(hook, {
      failureCount: failures,
      state: suspend ? 'suspended' : hook.state,
      lastDeliveryAt: now,
      lastResponseStatus: a.responseStatus,
    });
    if (a.outcome === 'success') deliveries.delivered(d.seq, now);
    else if (suspend) deliveries.failedAndDropRest(d.seq, d.webhookId, now);
    else deliveries.retryAt(d.seq, new Date(Date.parse(now) + opts.retryDelayMs(failures)).toISOString());
    return hook.state;
  }
}
