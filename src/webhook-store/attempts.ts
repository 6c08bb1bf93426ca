/** SQLite access for `webhook_attempts`: the log of every send, newest shown to owners, old ones pruned. */
import type { Db } from '../db/sqlite.ts';
import type { Statement } from '../db/statements.ts';
import { isoTime, uuid, z } from '../util/zod.ts';
import { EVENT_KINDS } from './events.ts';

/** One attempt as stored and as owners read it (GET /api/webhook/{id}/deliveries), declared once. */
export const DeliveryAttempt = z
  .object({
    deliveryId: uuid.openapi({
      description: 'as sent in X-Webhook-Delivery; repeated attempts of one delivery share it',
    }),
    event: z.enum(EVENT_KINDS),
    postId: uuid,
    outcome: z.enum(['success', 'failure']),
    responseStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int().min(0),
    attemptedAt: isoTime,
  })
  .strict()
  .openapi('DeliveryAttempt');

export type AttemptRow = z.infer<typeof DeliveryAttempt>;

export class AttemptTable {
  constructor(
    private readonly db: Db,
    private readonly stmt: (sql: string) => Statement,
  ) {}

  insert(webhookId: string, a: AttemptRow): void {
    this.stmt(
      `INSERT INTO webhook_attempts (delivery_id, webhook_id, event, post_id, outcome, response_status, error, duration_ms, attempted_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      a.deliveryId,
      webhookId,
      a.event,
      a.postId,
      a.outcome,
      a.responseStatus,
      a.error,
      a.durationMs,
      a.attemptedAt,
    );
  }

  latest(webhookId: string, limit = 50): AttemptRow[] {
    return this.db
      .prepare(
        `SELECT delivery_id AS deliveryId, event, post_id AS postId, outcome, response_status AS responseStatus,
                error, duration_ms AS durationMs, attempted_at AS attemptedAt
         FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
      )
      .all(webhookId, limit) as AttemptRow[];
  }

  /** Removes up to `limit` of a webhook's attempts made before `before` that are not among its latest `keep`. */
  prune(webhookId: string, before: string, keep: number, limit: number): number {
    return this.db
      .prepare(
        `DELETE FROM webhook_attempts WHERE id IN (
           SELECT id FROM webhook_attempts WHERE webhook_id = ? AND attempted_at < ?
           AND id < coalesce((SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?), -1)
           ORDER BY id LIMIT ?)`,
      )
      .run(webhookId, before, webhookId, keep - 1, limit).changes;
  }
}
