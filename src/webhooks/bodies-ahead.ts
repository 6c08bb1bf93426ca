/**
 * Bodies made ahead of the sends: a window of a lane's deliveries at a time, rendered and signed in
 * one loop on the dispatcher's own thread.
 *
 * Why windows: one body rendered between two sends cost about twice what the same body costs in a
 * loop over its neighbours (the template interpreter, the outbox rows and the HMAC stay warm).
 * Why on the dispatcher's thread: on a thread of their own (sessions 29 to 35) the bodies crossed
 * between threads, and that thread, the result writes' and V8's kept the sending thread and the
 * receivers waiting for a core; drained on one thread the same work went about 11 % faster
 * (bench/notes/webhook-drain.md, session 36).
 *
 * It changes nothing the sends promise: the webhook is still read at each send, and a body made
 * ahead is used only if it was rendered with the template the webhook has then and the media URL
 * configured then, and signed with the secret it has then; otherwise the window is made again from
 * that delivery on. Outbox rows never change once written, so the rest of what a body depends on
 * cannot have moved. A delivery that cannot be made here (a template error, a row gone, not a post
 * event) is left to the lane, which sees for itself.
 */
import type { DeliveryRow, PostEventKind } from '../webhook-store/webhook-repository.ts';
import { signBody } from './attempt.ts';
import type { EventBodies } from './event-bodies.ts';

/**
 * Deliveries made at a time, per lane. 512 against 128: about 10 % faster drains in paired runs
 * (bench/notes/webhook-drain.md, session 36); a window is about 200 KB of bodies.
 */
const WINDOW = 512;

/** A body made ahead: its event, its post, the body (UTF-8) and its signature. */
export interface Prepared {
  event: PostEventKind;
  postId: string;
  body: Buffer;
  signature: string;
}

/** One window of a lane, with what its bodies were made with. */
interface Window {
  /** The lane's index of its first delivery, and one past its last */
  from: number;
  to: number;
  template: string | null;
  secret: string;
  mediaUrl: string;
  /** per delivery: its body made ahead, or null when the lane must see for itself */
  items: (Prepared | null)[];
}

/** A lane's window, if it has one. */
export interface LaneBodies {
  window: Window | undefined;
}

export const laneBodies = (): LaneBodies => ({ window: undefined });

export class BodiesAhead {
  constructor(private readonly events: EventBodies) {}

  /**
   * The body of the lane's delivery at `next`, made with the webhook's template and secret as they
   * are now and this media URL: from the lane's window, or a window made now from that delivery on.
   * Undefined when the lane must see for itself.
   */
  take(
    lane: { deliveries: DeliveryRow[]; next: number; bodies: LaneBodies },
    hook: { template: string | null; secret: string },
    mediaUrl: string,
  ): Prepared | undefined {
    const index = lane.next;
    let w = lane.bodies.window;
    if (
      !w ||
      index < w.from ||
      index >= w.to ||
      w.template !== hook.template ||
      w.secret !== hook.secret ||
      w.mediaUrl !== mediaUrl
    )
      w = lane.bodies.window = this.make(lane.deliveries, index, hook, mediaUrl);
    return w.items[index - w.from] ?? undefined;
  }

  private make(
    deliveries: DeliveryRow[],
    from: number,
    { template, secret }: { template: string | null; secret: string },
    mediaUrl: string,
  ): Window {
    const to = Math.min(deliveries.length, from + WINDOW);
    const ids: number[] = [];
    for (let i = from; i < to; i++) ids.push(deliveries[i].outboxId);
    this.events.prefetch(ids);
    const items: (Prepared | null)[] = [];
    for (let i = from; i < to; i++) {
      const d = deliveries[i];
      const row = this.events.row(d.outboxId);
      if (!row || row.event === 'reindex') {
        items.push(null);
        continue;
      }
      let body: Buffer;
      try {
        body = this.events.body(row, d.initiatorName, template, mediaUrl);
      } catch {
        // A template error is reported by the lane, which renders it again.
        items.push(null);
        continue;
      }
      items.push({ event: row.event, postId: row.postId, body, signature: signBody(body, secret) });
    }
    return { from, to, template, secret, mediaUrl, items };
  }
}
