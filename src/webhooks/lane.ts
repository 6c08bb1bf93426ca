/**
 * A lane: a webhook's next deliveries, claimed together by the dispatcher (dispatcher.ts) and sent
 * here one after another over a kept-alive connection, each only after the one before it succeeded.
 */
import { attemptDelivery, INTERRUPTED, type AttemptContext } from './attempt.ts';
import type { BodiesAhead, LaneBodies } from './bodies-ahead.ts';
import type { EventBodies } from './event-bodies.ts';
import type { ResultWriter } from './result-writer.ts';
import type {
  AttemptRow,
  DeliveryRow,
  DeliveryTarget,
  PostEventKind,
  WebhookRepository,
} from '../webhook-store/webhook-repository.ts';

/** A lane starts no new send that could outlast its claim's lease by less than this. */
const LEASE_MARGIN_MS = 5_000;

/** A webhook's deliveries being sent by this process, in order; `next` is the one being sent or next to be. */
export interface Lane {
  deliveries: DeliveryRow[];
  next: number;
  leaseEndsAt: number;
  /** Its next deliveries' bodies, made ahead a window at a time (bodies-ahead.ts). */
  bodies: LaneBodies;
}

/** What sending a lane needs of its dispatcher; the time-out is read at each send (configure() changes it). */
export interface LaneContext extends AttemptContext {
  repo: WebhookRepository;
  events: EventBodies;
  ahead: BodiesAhead;
  writer: ResultWriter;
  stats: { sent: number; delivered: number; failed: number; madeAhead: number };
  /** SQLite's data_version for the webhook-row check, as the dispatcher reads it (once per turn of its loop). */
  dataVersion: () => number;
}

/**
 * Sends a lane's deliveries one after another until one does not succeed. The lease moves
 * along with it as results are written (see the dispatcher's holds()); whatever is left unsent needs no
 * lease given back but the head's, and the head is then retried or its webhook suspended.
 */
export async function runLane(ctx: LaneContext, lane: Lane, signal: AbortSignal): Promise<void> {
  const { deliveries } = lane;
  try {
    while (lane.next < deliveries.length && !signal.aborted) {
      // Under a slow receiver, stop before the lease could run out mid-send; the rest is claimed afresh.
      if (Date.now() + ctx.timeoutMs() + LEASE_MARGIN_MS > lane.leaseEndsAt && lane.next > 0) break;
      const succeeded = await deliver(ctx, lane, deliveries[lane.next], signal);
      if (!succeeded) {
        lane.next = deliveries.length; // its result (or release) is queued; nothing further is held
        break;
      }
      lane.next++;
    }
  } finally {
    // Stopped early: the lease may have moved to this one (a write since the last send).
    if (lane.next < deliveries.length) ctx.writer.release(deliveries[lane.next].seq);
    lane.next = deliveries.length;
    ctx.writer.schedule();
  }
}

/** Sends one delivery and queues its result; true when it succeeded (the lane goes on). */
async function deliver(ctx: LaneContext, lane: Lane, d: DeliveryRow, signal: AbortSignal): Promise<boolean> {
  // Read per delivery, not per lane: an edited template or a suspension applies to the next one.
  const hook = ctx.repo.target(d.webhookId, ctx.dataVersion());
  if (!hook || hook.state !== 'active') {
    ctx.writer.release(d.seq);
    return false;
  }
  const row = eventAndBody(ctx, lane, d, hook);
  if (!row) {
    ctx.writer.release(d.seq);
    return false;
  }

  const started = Date.now();
  const result = await attemptDelivery(ctx, hook, row, d, signal);
  if (result === INTERRUPTED) {
    // Shutdown, not the receiver's fault: leave no trace, the delivery stays pending.
    ctx.writer.release(d.seq);
    return false;
  }
  const now = Date.now();
  ctx.stats.sent++;
  if (result.outcome === 'success') {
    ctx.stats.delivered++;
    ctx.writer.success({
      seq: d.seq,
      deliveryId: d.id,
      webhookId: d.webhookId,
      event: row.event,
      postId: row.postId,
      status: result.responseStatus!,
      durationMs: now - started,
      at: now,
    });
  } else {
    ctx.stats.failed++;
    const attempt: AttemptRow = {
      deliveryId: d.id,
      event: row.event,
      postId: row.postId,
      outcome: result.outcome,
      responseStatus: result.responseStatus,
      error: result.error,
      durationMs: now - started,
      attemptedAt: new Date(now).toISOString(),
    };
    ctx.writer.attempt(
      { kind: 'attempt', delivery: d, attempt },
      {
        webhookId: hook.id,
        deliveryId: d.id,
        event: row.event,
        outcome: result.outcome,
        status: result.responseStatus,
        error: result.error,
        ms: attempt.durationMs,
      },
    );
  }
  ctx.writer.schedule();
  return result.outcome === 'success';
}

/**
 * The delivery's event, post and body, the body rendered with the template as it is now (an edited
 * template applies to queued events): made ahead with it (and signed with the secret as it is now)
 * in the lane's window (bodies-ahead.ts), or here. Undefined when the event is not to be sent (gone,
 * or not a post event).
 */
function eventAndBody(
  ctx: LaneContext,
  lane: Lane,
  d: DeliveryRow,
  hook: DeliveryTarget,
): { event: PostEventKind; postId: string; body: string | Uint8Array | Error; signature?: string } | undefined {
  const { template } = hook;
  const mediaUrl = ctx.config.mediaUrl;
  const made = ctx.ahead.take(lane, hook, mediaUrl);
  if (made) {
    ctx.stats.madeAhead++;
    return made;
  }
  const row = ctx.events.row(d.outboxId);
  if (!row || row.event === 'reindex') return undefined;
  let body: Buffer | Error;
  try {
    body = ctx.events.body(row, d.initiatorName, template, mediaUrl);
  } catch (err) {
    body = err as Error;
  }
  return { event: row.event, postId: row.postId, body };
}
