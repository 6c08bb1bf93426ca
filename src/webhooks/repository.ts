/**
 * SQLite access for webhooks, their queued deliveries and the attempt log. Everything here is
 * synchronous (better-sqlite3), so each method is atomic within the process; the dispatcher's
 * claim additionally uses BEGIN IMMEDIATE so it is atomic across processes sharing DATA_DIR.
 */
import crypto from 'node:crypto';
import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { OutboxRow, PostEventKind } from '../kernel/outbox.ts';
import { EVENT_KINDS } from './event-data.ts';

export type WebhookState = 'active' | 'suspended';

export interface WebhookRow {
  id: string;
  ownerId: number;
  label: string | null;
  url: string;
  secret: string;
  events: PostEventKind[];
  template: string | null;
  state: WebhookState;
  failureCount: number;
  lastDeliveryAt: string | null;
  lastResponseStatus: number | null;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryTarget = Pick<WebhookRow, 'id' | 'url' | 'secret' | 'template' | 'state'>;

export interface DeliveryRow {
  seq: number;
  id: string;
  webhookId: string;
  outboxId: number;
  initiatorName: string | null;
  attempts: number;
}

export interface AttemptRow {
  deliveryId: string;
  event: PostEventKind;
  postId: string;
  outcome: 'success' | 'failure';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}

interface RawWebhook {
  id: string;
  owner_id: number;
  label: string | null;
  url: string;
  secret: string;
  events: string;
  template: string | null;
  state: WebhookState;
  failure_count: number;
  last_delivery_at: string | null;
  last_response_status: number | null;
  created_at: string;
  updated_at: string;
}

const fromRaw = (r: RawWebhook): WebhookRow => ({
  id: r.id,
  ownerId: r.owner_id,
  label: r.label,
  url: r.url,
  secret: r.secret,
  events: JSON.parse(r.events) as PostEventKind[],
  template: r.template,
  state: r.state,
  failureCount: r.failure_count,
  lastDeliveryAt: r.last_delivery_at,
  lastResponseStatus: r.last_response_status,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Canonical order, no repeats: what is stored and returned. */
export const normaliseEvents = (events: readonly PostEventKind[]): PostEventKind[] => EVENT_KINDS.filter((e) => events.includes(e));

export interface NewWebhook {
  ownerId: number;
  label: string | null;
  url: string;
  secret: string;
  events: PostEventKind[];
  template: string | null;
}

export type WebhookPatch = Partial<Pick<NewWebhook, 'label' | 'url' | 'secret' | 'events' | 'template'>>;

/**
 * The earliest scheduled retry of an active webhook. Read in retry order over the partial index
 * webhook_deliveries_retry, so the first row of an active webhook ends the search however many
 * deliveries are pending (the dispatcher asks after every send).
 */
export const NEXT_RETRY_SQL = `SELECT d.next_attempt_at FROM webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL
    AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.state = 'active')
  ORDER BY d.next_attempt_at LIMIT 1`;

/** What the dispatcher hands back after sending: an attempt to record, or a claim to give back unsent. */
export type DeliveryResult =
  | { kind: 'attempt'; delivery: DeliveryRow; attempt: AttemptRow }
  | { kind: 'release'; seq: number }
  | { kind: 'hold'; seq: number; until: string };

/** A webhook's row as a batch of results leaves it. */
interface HookTally {
  failureCount: number;
  state: WebhookState;
  lastDeliveryAt: string | null;
  lastResponseStatus: number | null;
}

export interface RecordOptions {
  suspendAfter: number;
  retryDelayMs: (failureCount: number) => number;
}

export class WebhookRepository {
  /** Prepared once: the dispatcher runs the same few statements for every delivery. */
  private readonly stmt: (sql: string) => Statement;

  constructor(private readonly db: Db) {
    this.stmt = statementCache(db);
  }

  // ---- management ------------------------------------------------------------------------

  /** Inserts unless the owner already has `limit` webhooks; returns undefined when at the limit. */
  insertWithin(limit: number, w: NewWebhook): WebhookRow | undefined {
    return this.db.transaction(() => {
      if (this.countByOwner(w.ownerId) >= limit) return undefined;
      const id = crypto.randomUUID();
      const now = new Date().toISOString();
      this.db
        .prepare(
          `INSERT INTO webhooks (id, owner_id, label, url, secret, events, template, state, failure_count, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'active', 0, ?, ?)`,
        )
        .run(id, w.ownerId, w.label, w.url, w.secret, JSON.stringify(normaliseEvents(w.events)), w.template, now, now);
      return this.get(id)!;
    }).immediate();
  }

  /** Whether any delivery waits to be sent (pending, due or not). */
  hasPending(): boolean {
    return this.stmt("SELECT 1 FROM webhook_deliveries WHERE status = 'pending' LIMIT 1").get() !== undefined;
  }

  countByOwner(ownerId: number): number {
    return this.db.prepare('SELECT count(*) FROM webhooks WHERE owner_id = ?').pluck().get(ownerId) as number;
  }

  get(id: string): WebhookRow | undefined {
    const r = this.stmt('SELECT * FROM webhooks WHERE id = ?').get(id) as RawWebhook | undefined;
    return r && fromRaw(r);
  }

  /** What sending to a webhook needs, read for every delivery (so edits apply at once): no more. */
  target(id: string): DeliveryTarget | undefined {
    return this.stmt('SELECT id, url, secret, template, state FROM webhooks WHERE id = ?').get(id) as DeliveryTarget | undefined;
  }

  /** Only the owner's: anyone else's webhook is as good as absent. */
  getOwned(id: string, ownerId: number): WebhookRow | undefined {
    const w = this.get(id);
    return w && w.ownerId === ownerId ? w : undefined;
  }

  listByOwner(ownerId: number): WebhookRow[] {
    return (this.db.prepare('SELECT * FROM webhooks WHERE owner_id = ? ORDER BY created_at, id').all(ownerId) as RawWebhook[]).map(fromRaw);
  }

  update(id: string, patch: WebhookPatch): WebhookRow | undefined {
    const sets: string[] = [];
    const values: unknown[] = [];
    const column = { label: 'label', url: 'url', secret: 'secret', events: 'events', template: 'template' } as const;
    for (const key of Object.keys(column) as (keyof typeof column)[]) {
      if (patch[key] === undefined) continue;
      sets.push(`${column[key]} = ?`);
      values.push(key === 'events' ? JSON.stringify(normaliseEvents(patch.events!)) : patch[key]);
    }
    if (sets.length > 0) {
      this.db.prepare(`UPDATE webhooks SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`).run(...values, new Date().toISOString(), id);
    }
    return this.get(id);
  }

  delete(id: string): boolean {
    // Deliveries and attempts go with it (ON DELETE CASCADE).
    return this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
  }

  /** Suspended → active with a clean slate; queued deliveries were dropped at suspension. */
  reactivate(id: string): WebhookRow | undefined {
    this.db
      .prepare("UPDATE webhooks SET state = 'active', failure_count = 0, updated_at = ? WHERE id = ?")
      .run(new Date().toISOString(), id);
    return this.get(id);
  }

  latestAttempts(webhookId: string, limit = 50): AttemptRow[] {
    return this.db
      .prepare(
        `SELECT delivery_id AS deliveryId, event, post_id AS postId, outcome, response_status AS responseStatus,
                error, duration_ms AS durationMs, attempted_at AS attemptedAt
         FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
      )
      .all(webhookId, limit) as AttemptRow[];
  }

  // ---- fan-out (inside the post-change transaction) ----------------------------------------

  /** Queues one delivery per active webhook subscribed to the row's event; returns how many. */
  enqueue(row: OutboxRow): number {
    if (row.event === 'reindex') return 0;
    const initiatorName =
      row.initiatorId === null ? null : ((this.stmt('SELECT name FROM users WHERE id = ?').pluck().get(row.initiatorId) as string | undefined) ?? null);
    const targets = this.stmt(
      `SELECT id FROM webhooks w WHERE state = 'active'
         AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?)`,
    )
      .pluck()
      .all(row.event) as string[];
    const insert = this.stmt(
      'INSERT INTO webhook_deliveries (id, webhook_id, outbox_id, initiator_name, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    for (const webhookId of targets) insert.run(crypto.randomUUID(), webhookId, row.id, initiatorName, row.createdAt);
    return targets.length;
  }

  // ---- dispatch ----------------------------------------------------------------------------

  /**
   * Hands out, for up to `limit` active webhooks that are due and not already being sent (by us:
   * `busy`; by anyone: an unexpired lease on the head), the head (oldest pending) delivery and
   * up to `batch - 1` that follow it, in order: a "lane". Only the head is leased; the lease is
   * what marks the whole webhook as taken, and the sender moves it along to each next delivery
   * as it records results ({ kind: 'hold' } in recordResults), so at every moment the webhook's
   * head carries it. The caller sends a lane one delivery at a time, in seq order, and stops at
   * the first failure, so each webhook receives its events in order.
   */
  claimLanes(opts: { limit: number; batch: number; busy: ReadonlySet<string>; claimant: string; leaseMs: number; now?: number }): DeliveryRow[][] {
    if (opts.limit <= 0) return [];
    // The claim takes the write lock; most polls find nothing, so look without it first.
    if (!this.stmt("SELECT 1 FROM webhook_deliveries WHERE status = 'pending' LIMIT 1").get()) return [];
    const now = new Date(opts.now ?? Date.now()).toISOString();
    const until = new Date((opts.now ?? Date.now()) + opts.leaseMs).toISOString();
    return this.db.transaction(() => {
      const heads = this.stmt(
        `SELECT d.seq, d.webhook_id AS webhookId, d.next_attempt_at AS nextAttemptAt, d.claimed_until AS claimedUntil
           FROM webhooks w
           JOIN webhook_deliveries d ON d.seq = (
             SELECT min(seq) FROM webhook_deliveries WHERE webhook_id = w.id AND status = 'pending')
           WHERE w.state = 'active'`,
      ).all() as { seq: number; webhookId: string; nextAttemptAt: string | null; claimedUntil: string | null }[];
      const read = this.stmt(
        `SELECT seq, id, webhook_id AS webhookId, outbox_id AS outboxId, initiator_name AS initiatorName, attempts
         FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY seq LIMIT ?`,
      );
      const lanes: DeliveryRow[][] = [];
      for (const h of heads.sort((a, b) => a.seq - b.seq)) {
        if (lanes.length >= opts.limit) break;
        if (opts.busy.has(h.webhookId)) continue;
        if (h.nextAttemptAt !== null && h.nextAttemptAt > now) continue;
        if (h.claimedUntil !== null && h.claimedUntil > now) continue;
        this.hold(h.seq, opts.claimant, until);
        lanes.push(read.all(h.webhookId, Math.max(1, opts.batch)) as DeliveryRow[]);
      }
      return lanes;
    }).immediate();
  }

  /** Puts the lease on a delivery (the new head of a webhook whose lane goes on). */
  private hold(seq: number, claimant: string, until: string): void {
    this.stmt('UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE seq = ?').run(claimant, until, seq);
  }

  /** Gives a claim back unsent (shutdown mid-flight): the delivery is due again at once. */
  release(seq: number, claimant: string): void {
    this.stmt('UPDATE webhook_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE seq = ? AND claimed_by = ?').run(seq, claimant);
  }

  /** When the earliest scheduled retry of an active webhook falls due, if any. */
  nextRetryAt(): number | undefined {
    const at = this.stmt(NEXT_RETRY_SQL)
      .pluck()
      .get() as string | null | undefined;
    return at == null ? undefined : Date.parse(at);
  }

  /**
   * Records one attempt and its consequences in one transaction. Success: delivered, failure
   * count reset. Failure: the webhook's consecutive count goes up; below `suspendAfter` the same
   * delivery is retried at `retryAt`; at it the webhook is suspended, this delivery is `failed`
   * and everything else queued for it is `dropped` (no invocations until re-activation, and
   * re-activation starts with new events rather than a stale backlog).
   * Returns the webhook's state afterwards, or undefined if it was deleted meanwhile.
   */
  recordAttempt(d: DeliveryRow, a: AttemptRow, opts: RecordOptions): WebhookState | undefined {
    return this.recordResults([{ kind: 'attempt', delivery: d, attempt: a }], '', opts)[0];
  }

  /**
   * Records a batch of results in one transaction, in the order given (the order they happened:
   * a success resets the failure count the next failure adds to). Leases are released or moved
   * on to a lane's next delivery in the same order. Returns the webhook state after each attempt (undefined for
   * releases and deleted webhooks).
   */
  recordResults(results: readonly DeliveryResult[], claimant: string, opts: RecordOptions): (WebhookState | undefined)[] {
    return this.db
      .transaction(() => {
        // Each webhook's row is read once and written once per batch, with its state after the
        // last of its attempts: nothing else reads it inside the transaction, so the outcome is
        // that of writing it after every attempt.
        const hooks = new Map<string, HookTally | null>();
        const states = results.map((r) => {
          if (r.kind === 'attempt') return this.applyAttempt(r.delivery, r.attempt, opts, hooks);
          if (r.kind === 'hold') this.hold(r.seq, claimant, r.until);
          else this.release(r.seq, claimant);
          return undefined;
        });
        const update = this.stmt('UPDATE webhooks SET failure_count = ?, state = ?, last_delivery_at = ?, last_response_status = ? WHERE id = ?');
        for (const [id, h] of hooks) if (h) update.run(h.failureCount, h.state, h.lastDeliveryAt, h.lastResponseStatus, id);
        return states;
      })
      .immediate();
  }

  private applyAttempt(d: DeliveryRow, a: AttemptRow, opts: RecordOptions, hooks: Map<string, HookTally | null>): WebhookState | undefined {
    let hook = hooks.get(d.webhookId);
    if (hook === undefined) {
      const row = this.stmt('SELECT failure_count AS failureCount, state FROM webhooks WHERE id = ?').get(d.webhookId) as Pick<HookTally, 'failureCount' | 'state'> | undefined;
      hook = row ? { ...row, lastDeliveryAt: null, lastResponseStatus: null } : null;
      hooks.set(d.webhookId, hook);
    }
    if (!hook) return undefined; // deleted meanwhile, with its deliveries
    const now = a.attemptedAt;
    this.stmt(
      `INSERT INTO webhook_attempts (delivery_id, webhook_id, event, post_id, outcome, response_status, error, duration_ms, attempted_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(a.deliveryId, d.webhookId, a.event, a.postId, a.outcome, a.responseStatus, a.error, a.durationMs, now);
    const failures = a.outcome === 'success' ? 0 : hook.failureCount + 1;
    const suspend = failures >= opts.suspendAfter;
    Object.assign(hook, { failureCount: failures, state: suspend ? 'suspended' : hook.state, lastDeliveryAt: now, lastResponseStatus: a.responseStatus });
    if (a.outcome === 'success') {
      this.stmt(
        "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, finished_at = ?, claimed_by = NULL, claimed_until = NULL WHERE seq = ?",
      ).run(now, d.seq);
    } else if (suspend) {
      this.stmt(
        "UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, finished_at = ?, claimed_by = NULL, claimed_until = NULL WHERE seq = ?",
      ).run(now, d.seq);
      this.stmt("UPDATE webhook_deliveries SET status = 'dropped', finished_at = ? WHERE webhook_id = ? AND status = 'pending'").run(now, d.webhookId);
    } else {
      const retryAt = new Date(Date.parse(now) + opts.retryDelayMs(failures)).toISOString();
      this.stmt('UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL WHERE seq = ?').run(
        retryAt,
        d.seq,
      );
    }
    return hook.state;
  }

  // ---- retention (src/retention) ----------------------------------------------------------

  /** Removes up to `limit` deliveries settled (delivered, failed, dropped) before `before`; returns how many. */
  pruneSettledDeliveries(before: string, limit: number): number {
    return this.db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE seq IN (
           SELECT seq FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < ? ORDER BY finished_at LIMIT ?)`,
      )
      .run(before, limit).changes;
  }

  /** Removes up to `limit` of a webhook's attempts made before `before` that are not among its latest `keep`. */
  pruneAttempts(webhookId: string, before: string, keep: number, limit: number): number {
    return this.db
      .prepare(
        `DELETE FROM webhook_attempts WHERE id IN (
           SELECT id FROM webhook_attempts WHERE webhook_id = ? AND attempted_at < ?
           AND id < coalesce((SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?), -1)
           ORDER BY id LIMIT ?)`,
      )
      .run(webhookId, before, webhookId, keep - 1, limit).changes;
  }

  /** Every webhook's id (retention walks their attempts one webhook at a time). */
  ids(): string[] {
    return this.db.prepare('SELECT id FROM webhooks').pluck().all() as string[];
  }

  /** Per-status counts for one webhook (tests and diagnostics). */
  deliveryCounts(webhookId: string): Record<string, number> {
    const rows = this.db.prepare('SELECT status, count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? GROUP BY status').all(webhookId) as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
