/** SQLite access for `webhook_attempts`: the log of every send, newest shown to owners, old ones pruned. */
import type { Db } from '../db/sqlite.ts';
import type { Statement } from '../db/statements.ts';
import type { PostEventKind } from './events.ts';

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
