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
 * A success before the last of its run, as a run's row keeps it in `earlier` (migration 026):
 * [delivery id, event, post id, response status, duration ms, attempted at].
 */
export type EarlierSuccess = [string, string, string, number | null, number, string];

/**
 * A webhook's successes in a row within one batch of results, stored as one row
 * (docs/decisions.md §8): the last of them in the row's columns, the ones before it in `earlier`.
 */
export interface SuccessRunOfHook {
  webhookId: string;
  last: { deliveryId: string; event: string; postId: string; status: number | null; durationMs: number; at: string };
  /** the successes before the last, oldest first, as the JSON text of EarlierSuccess[]; '' when there are none */
  earlier: string;
  /** how many successes the run holds, the last included */
  count: number;
}

/** A row as latest() reads it: one attempt, and the successes before it in its run. */
interface StoredRow extends AttemptRow {
  earlier: string | null;
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

  /** A webhook's run of successes: one row, however many it holds. */
  insertRun(run: SuccessRunOfHook): void {
    const { last } = run;
    this.stmt(
      `INSERT INTO webhook_attempts (delivery_id, webhook_id, event, post_id, outcome, response_status, error, duration_ms, attempted_at, earlier, attempts)
         VALUES (?, ?, ?, ?, 'success', ?, NULL, ?, ?, ?, ?)`,
    ).run(
      last.deliveryId,
      run.webhookId,
      last.event,
      last.postId,
      last.status,
      last.durationMs,
      last.at,
      run.earlier ? `[${run.earlier}]` : null,
      run.count,
    );
  }

  /** The webhook's latest `limit` attempts, newest first: rows are read newest first until they hold that many. */
  latest(webhookId: string, limit = 50): AttemptRow[] {
    const out: AttemptRow[] = [];
    if (limit <= 0) return out;
    const rows = this.stmt(
      `SELECT delivery_id AS deliveryId, event, post_id AS postId, outcome, response_status AS responseStatus,
              error, duration_ms AS durationMs, attempted_at AS attemptedAt, earlier
       FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC`,
    ).iterate(webhookId) as IterableIterator<StoredRow>;
    for (const { earlier, ...attempt } of rows) {
      out.push(attempt);
      if (earlier) {
        const before = JSON.parse(earlier) as EarlierSuccess[];
        for (let i = before.length - 1; i >= 0 && out.length < limit; i--) {
          const [deliveryId, event, postId, responseStatus, durationMs, attemptedAt] = before[i];
          out.push({
            deliveryId,
            event: event as AttemptRow['event'],
            postId,
            outcome: 'success',
            responseStatus,
            error: null,
            durationMs,
            attemptedAt,
          });
        }
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Removes up to `limit` of a webhook's rows whose attempts were all made before `before` and are
   * all older than its latest `keep` (a row holding one of those is kept whole).
   */
  prune(webhookId: string, before: string, keep: number, limit: number): number {
    let held = 0;
    let oldestKept: number | undefined;
    const newestFirst = this.db
      .prepare('SELECT id, attempts FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC')
      .iterate(webhookId) as IterableIterator<{ id: number; attempts: number }>;
    for (const row of newestFirst) {
      if (held >= keep) break;
      held += row.attempts;
      oldestKept = row.id;
    }
    if (oldestKept === undefined || held < keep) return 0;
    return this.db
      .prepare(
        `DELETE FROM webhook_attempts WHERE id IN (
           SELECT id FROM webhook_attempts WHERE webhook_id = ? AND attempted_at < ? AND id < ? ORDER BY id LIMIT ?)`,
      )
      .run(webhookId, before, oldestKept, limit).changes;
  }
}
