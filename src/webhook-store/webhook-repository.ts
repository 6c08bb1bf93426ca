/**
 * The webhook tables behind one object: what the webhook API, the dispatcher, retention and the
 * post kernel's commit step ask of them. Each table's SQL is in its own file beside this one;
 * this file only routes to them and shares their statement cache.
 */
import type { Db } from '../db/sqlite.ts';
import { statementCache } from '../db/statements.ts';
import { AttemptTable, type AttemptRow, type SuccessRunOfHook } from './attempts.ts';
import { DeliveryTable, type ChangeToDeliver, type DeliveryRow } from './deliveries.ts';
import { ResultRecorder, type DeliveryResult, type RecordOptions } from './results.ts';
import {
  SubscriptionTable,
  type DeliveryTarget,
  type NewWebhook,
  type WebhookPatch,
  type WebhookRow,
  type WebhookState,
} from './subscriptions.ts';

export type {
  AttemptRow,
  ChangeToDeliver,
  DeliveryResult,
  DeliveryRow,
  DeliveryTarget,
  NewWebhook,
  RecordOptions,
  SuccessRunOfHook,
  WebhookPatch,
  WebhookRow,
  WebhookState,
};
export { NEXT_RETRY_SQL } from './deliveries.ts';
export { EVENT_KINDS, normaliseEvents, type PostEventKind } from './events.ts';

export class WebhookRepository {
  readonly subscriptions: SubscriptionTable;
  readonly deliveries: DeliveryTable;
  readonly attempts: AttemptTable;
  private readonly results: ResultRecorder;

  constructor(db: Db) {
    // Prepared once for all three tables: the dispatcher runs the same few statements for every delivery.
    const stmt = statementCache(db);
    this.subscriptions = new SubscriptionTable(db, stmt);
    this.deliveries = new DeliveryTable(db, stmt);
    this.attempts = new AttemptTable(db, stmt);
    this.results = new ResultRecorder(db, this);
  }

  /**
   * Queues one delivery of a post change per active webhook subscribed to its event; returns how
   * many. Runs inside the change's transaction (src/kernel/unit-of-work.ts), so they commit together.
   */
  enqueue(change: ChangeToDeliver): number {
    const targets = this.subscriptions.activeFor(change.event);
    this.deliveries.enqueue(change, targets);
    return targets.length;
  }

  // ---- management (src/webhooks/service.ts) ----
  insertWithin = (limit: number, w: NewWebhook): WebhookRow | undefined => this.subscriptions.insertWithin(limit, w);
  countByOwner = (ownerId: number): number => this.subscriptions.countByOwner(ownerId);
  get = (id: string): WebhookRow | undefined => this.subscriptions.get(id);
  getOwned = (id: string, ownerId: number): WebhookRow | undefined => this.subscriptions.getOwned(id, ownerId);
  listByOwner = (ownerId: number): WebhookRow[] => this.subscriptions.listByOwner(ownerId);
  update = (id: string, patch: WebhookPatch): WebhookRow | undefined => this.subscriptions.update(id, patch);
  delete = (id: string): boolean => this.subscriptions.delete(id);
  reactivate = (id: string): WebhookRow | undefined => this.subscriptions.reactivate(id);
  latestAttempts = (webhookId: string, limit?: number): AttemptRow[] => this.attempts.latest(webhookId, limit);

  // ---- dispatch (src/webhooks/dispatcher.ts) ----
  dataVersion = (): number => this.subscriptions.dataVersion();
  target = (id: string, version: number): DeliveryTarget | undefined => this.subscriptions.target(id, version);
  hasPending = (): boolean => this.deliveries.hasPending();
  claimLanes = (opts: Parameters<DeliveryTable['claimLanes']>[0]): DeliveryRow[][] => this.deliveries.claimLanes(opts);
  nextRetryAt = (): number | undefined => this.deliveries.nextRetryAt();
  recordResults = (
    results: readonly DeliveryResult[],
    claimant: string,
    opts: RecordOptions,
  ): (WebhookState | undefined)[] => this.results.record(results, claimant, opts);

  // ---- retention (src/webhooks/retention.ts) ----
  ids = (): string[] => this.subscriptions.ids();
  pruneSettledDeliveries = (before: string, limit: number): number => this.deliveries.pruneSettled(before, limit);
  pruneAttempts = (webhookId: string, before: string, keep: number, limit: number): number =>
    this.attempts.prune(webhookId, before, keep, limit);

  /** Per-status counts for one webhook (tests and diagnostics). */
  deliveryCounts = (webhookId: string): Record<string, number> => this.deliveries.countsByStatus(webhookId);
}
