/**
 * SQLite access for `webhook_deliveries`: queued in each post change's transaction, claimed by the
 * dispatcher in lanes, settled by its results, pruned by retention. The claim uses BEGIN IMMEDIATE
 * so it is atomic across processes sharing DATA_DIR.
 */
import crypto from 'node:crypto';
import type { Db } from '../db/sqlite.ts';
import type { Statement } from '../db/statements.ts';
import type { PostEventKind } from './events.ts';

export interface DeliveryRow {
  seq: number;
  id: string;
  webhookId: string;
  outboxId: number;
  initiatorName: string | null;
  attempts: number;
}

/** One change's deliveries: its outbox row, and who made it (the name is kept as it was then). */
export interface ChangeToDeliver {
  outboxId: number;
  event: PostEventKind;
  initiatorName: string | null;
  createdAt: string;
}

/**
 * The earliest scheduled retry of an active webhook. Read in retry order over the partial index
 * webhook_deliveries_retry, so the first row of an active webhook ends the search however many
 * deliveries are pending (the dispatcher asks after every send).
 */
export const NEXT_RETRY_SQL = `SELECT d.next_attempt_at FROM webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL
    AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.state = 'active')
  ORDER BY d.next_attempt_at LIMIT 1`;

export class DeliveryTable {
  constructor(
    private readonly db: Db,
    private readonly stmt: (sql: string) => Statement,
  ) {}

  /** Queues one delivery of the change to each of `webhookIds`; must run in the change's transaction. */
  enqueue(change: ChangeToDeliver, webhookIds: readonly string[]): void {
    const insert = this.stmt(
      'INSERT INTO webhook_deliveries (id, webhook_id, outbox_id, initiator_name, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    for (const webhookId of webhookIds)
      insert.run(crypto.randomUUID(), webhookId, change.outboxId, change.initiatorName, change.createdAt);
  }

  /** Whether any delivery waits to be sent (pending, due or not). */
  hasPending(): boolean {
    return this.stmt("SELECT 1 FROM webhook_deliveries WHERE status = 'pending' LIMIT 1").get() !== undefined;
  }

  /**
   * Hands out, for up to `limit` active webhooks that are due and not already being sent (by us:
   * `busy`; by anyone: an unexpired lease on the head), the head (oldest pending) delivery and
   * up to `batch - 1` that follow it, in order: a "lane". Only the head is leased; the lease is
   * what marks the whole webhook as taken, and the sender moves it along to each next delivery
   * as it records results ({ kind: 'hold' } in recordResults), so at every moment the webhook's
   * head carries it. The caller sends a lane one delivery at a time, in seq order, and stops at
   * the first failure, so each webhook receives its events in order.
   */
  claimLanes(opts: {
    limit: number;
    batch: number;
    busy: ReadonlySet<string>;
    claimant: string;
    leaseMs: number;
    /**
     * How many dispatchers share the webhooks (1: this one alone). Each then runs at most its share of the
     * webhooks that are due, counting its `busy` ones, so several threads split a backlog between them rather
     * than the first to look taking every webhook.
     */
    sharedBy?: number;
    /**
     * Which of the `sharedBy` dispatchers this is (0-based). It prefers the webhooks of its own
     * templates: the distinct templates of the due webhooks, in text order, go round the
     * dispatchers, and each takes the webhooks of its templates before others (oldest head first
     * within each). A body is rendered once per event and template by each dispatcher that sends
     * it, so webhooks sharing a template are best sent by one; and every template is some
     * dispatcher's first choice, so none waits behind the others.
     */
    shareIndex?: number;
    now?: number;
  }): DeliveryRow[][] {
    if (opts.limit <= 0) return [];
    // The claim takes the write lock; most polls find nothing, so look without it first.
    if (!this.hasPending()) return [];
    const now = new Date(opts.now ?? Date.now()).toISOString();
    const until = new Date((opts.now ?? Date.now()) + opts.leaseMs).toISOString();
    return this.db
      .transaction(() => {
        const heads = this.stmt(
          `SELECT d.seq, d.webhook_id AS webhookId, d.next_attempt_at AS nextAttemptAt, d.claimed_until AS claimedUntil,
                  coalesce(w.template, '') AS template
           FROM webhooks w
           JOIN webhook_deliveries d ON d.seq = (
             SELECT min(seq) FROM webhook_deliveries WHERE webhook_id = w.id AND status = 'pending')
           WHERE w.state = 'active'`,
        ).all() as {
          seq: number;
          webhookId: string;
          nextAttemptAt: string | null;
          claimedUntil: string | null;
          template: string;
        }[];
        const read = this.stmt(
          `SELECT seq, id, webhook_id AS webhookId, outbox_id AS outboxId, initiator_name AS initiatorName, attempts
         FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY seq LIMIT ?`,
        );
        const lanes: DeliveryRow[][] = [];
        let limit = opts.limit;
        heads.sort((a, b) => a.seq - b.seq);
        if (opts.sharedBy !== undefined && opts.sharedBy > 1) {
          const due = heads.filter((h) => h.nextAttemptAt === null || h.nextAttemptAt <= now);
          limit = Math.min(limit, Math.ceil(due.length / opts.sharedBy) - opts.busy.size);
          if (opts.shareIndex !== undefined) {
            const templates = [...new Set(due.map((h) => h.template))].sort();
            const mine = new Set(templates.filter((_, i) => i % opts.sharedBy! === opts.shareIndex));
            // A stable sort: oldest head first within each group.
            heads.sort((a, b) => Number(mine.has(b.template)) - Number(mine.has(a.template)));
          }
        }
        for (const h of heads) {
          if (lanes.length >= limit) break;
          if (opts.busy.has(h.webhookId)) continue;
          if (h.nextAttemptAt !== null && h.nextAttemptAt > now) continue;
          if (h.claimedUntil !== null && h.claimedUntil > now) continue;
          this.hold(h.seq, opts.claimant, until);
          lanes.push(read.all(h.webhookId, Math.max(1, opts.batch)) as DeliveryRow[]);
        }
        return lanes;
      })
      .immediate();
  }

  /** Puts the lease on a delivery (the new head of a webhook whose lane goes on). */
  hold(seq: number, claimant: string, until: string): void {
    this.stmt('UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE seq = ?').run(
      claimant,
      until,
      seq,
    );
  }

  /** Gives a claim back unsent (shutdown mid-flight): the delivery is due again at once. */
  release(seq: number, claimant: string): void {
    this.stmt(
      'UPDATE webhook_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE seq = ? AND claimed_by = ?',
    ).run(seq, claimant);
  }

  /** When the earliest scheduled retry of an active webhook falls due, if any. */
  nextRetryAt(): number | undefined {
    const at = this.stmt(NEXT_RETRY_SQL).pluck().get() as string | null | undefined;
    return at == null ? undefined : Date.parse(at);
  }

  delivered(seq: number, at: string): void {
    this.stmt(
      "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, finished_at = ?, claimed_by = NULL, claimed_until = NULL WHERE seq = ?",
    ).run(at, seq);
  }

  /**
   * Marks a batch of successes delivered, each at its attempt's time (a JSON array of [delivery seq,
   * attempted at], see SuccessRun): one statement for the batch, as delivered() does for one.
   */
  deliveredAll(json: string): void {
    this.stmt(
      `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, finished_at = j.value ->> 1,
         claimed_by = NULL, claimed_until = NULL
       FROM json_each(?) AS j WHERE webhook_deliveries.seq = j.value ->> 0`,
    ).run(json);
  }

  /** The delivery failed for good, and everything else queued for its webhook is dropped. */
  failedAndDropRest(seq: number, webhookId: string, at: string): void {
    this.stmt(
      "UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, finished_at = ?, claimed_by = NULL, claimed_until = NULL WHERE seq = ?",
    ).run(at, seq);
    this.stmt(
      "UPDATE webhook_deliveries SET status = 'dropped', finished_at = ? WHERE webhook_id = ? AND status = 'pending'",
    ).run(at, webhookId);
  }

  retryAt(seq: number, at: string): void {
    this.stmt(
      'UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL WHERE seq = ?',
    ).run(at, seq);
  }

  /** Removes up to `limit` deliveries settled (delivered, failed, dropped) before `before`; returns how many. */
  pruneSettled(before: string, limit: number): number {
    return this.db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE seq IN (
           SELECT seq FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < ? ORDER BY finished_at LIMIT ?)`,
      )
      .run(before, limit).changes;
  }

  /** The outbox rows among `outboxIds` that some delivery still points at (they must not be pruned yet). */
  referencedOutboxIds(outboxIds: readonly number[]): Set<number> {
    if (outboxIds.length === 0) return new Set();
    return new Set(
      this.stmt('SELECT DISTINCT outbox_id FROM webhook_deliveries WHERE outbox_id IN (SELECT value FROM json_each(?))')
        .pluck()
        .all(JSON.stringify(outboxIds)) as number[],
    );
  }

  /** Per-status counts for one webhook (tests and diagnostics). */
  countsByStatus(webhookId: string): Record<string, number> {
    const rows = this.db
      .prepare('SELECT status, count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? GROUP BY status')
      .all(webhookId) as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
