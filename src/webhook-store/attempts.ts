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

/**
 * A successful attempt as a batch of results writes it (AttemptTable.insertSuccesses and
 * DeliveryTable.deliveredAll read the same JSON array of these): [delivery seq, attempted at,
 * delivery id, webhook id, event, post id, response status, duration ms].
 */
export type SettledSuccess = [number, string, string, string, string, string, number | null, number];

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

  /**
   * Inserts the attempts of a batch of successes (a JSON array of SettledSuccess, in the order they
   * happened): one statement for the batch rather than one per attempt.
   */
  insertSuccesses(json: string): void {
    this.stmt(
      `INSERT INTO webhook_attempts (delivery_id, webhook_id, event, post_id, outcome, response_status, error, duration_ms, attempted_at)
         SELECT value ->> 2, value ->> 3, value ->> 4, value ->> 5, 'success', value ->> 6, NULL, value ->> 7, value ->> 1
         FROM json_each(?) ORDER BY key`,
    ).run(json);
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
