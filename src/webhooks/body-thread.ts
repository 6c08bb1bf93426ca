/**
 * Bodies rendered ahead of the sends, on a thread of their own (workers/webhook-bodies.ts, with its
 * own SQLite connection and its own EventBodies).
 *
 * Why: the dispatcher's thread is CPU-bound under a backlog, and reading each event's outbox row,
 * rendering its body for each template and signing it is work the sends had to wait for. While a lane sends, the
 * other thread reads and renders its next deliveries, a window at a time, so what is kept ahead stays
 * small.
 *
 * It changes nothing the sends promise: the webhook is still read at each send, and a body made
 * ahead is used only if it was rendered with the template the webhook has then and the media URL
 * configured then, and signed with the secret it has then; otherwise (or when it has not arrived
 * yet, or could not be made: a template error, a row gone) the sending thread renders and signs it
 * as before. Outbox rows never change once written, so the rest of what a body depends on cannot
 * have moved.
 */
import type { DeliveryRow, PostEventKind } from '../webhook-store/webhook-repository.ts';
import { HelperThread } from './helper-thread.ts';

/** Deliveries asked for at a time, per lane; the next window is asked for when half of this one is sent. */
const WINDOW = 64;

/** What the other thread is asked: a lane's next deliveries, rendered with one template and signed with one secret. */
export interface BodiesRequest {
  template: string | null;
  secret: string;
  mediaUrl: string;
  /** [outbox id, initiator name] per delivery */
  items: [number, string | null][];
}

/** Per delivery asked for: its event, its post and its body, or null when the sending thread must see for itself. */
export type PreparedBodies = ({ event: PostEventKind; postId: string; body: string; signature: string } | null)[];

/** A body made ahead, with what it was made with. */
export interface Prepared {
  event: PostEventKind;
  postId: string;
  body: string;
  signature: string;
  /** What it was made with */
  template: string | null;
  secret: string;
  mediaUrl: string;
}

/** A lane's share of it: the bodies arrived and not yet used, and how far it has asked. */
export interface LaneBodies {
  ready: Map<number, Prepared>;
  askedUpTo: number;
}

export class BodiesAhead {
  private readonly thread: HelperThread<BodiesRequest, PreparedBodies>;

  constructor(workerFile: string, dataDir: string) {
    this.thread = new HelperThread(workerFile, { dataDir });
  }

  start(): void {
    this.thread.start();
  }

  close(): Promise<void> {
    return this.thread.close();
  }

  /**
   * Asks for the next window of the lane's deliveries after `next`, rendered with the webhook's
   * template and signed with its secret, unless enough of it is asked for already. Cheap when it asks nothing.
   */
  ahead(
    lane: { deliveries: DeliveryRow[]; next: number; bodies: LaneBodies },
    hook: { template: string | null; secret: string },
    mediaUrl: string,
  ): void {
    const { deliveries, bodies } = lane;
    if (bodies.askedUpTo - lane.next > WINDOW / 2) return;
    const from = Math.max(bodies.askedUpTo, lane.next + 1);
    const to = Math.min(deliveries.length, from + WINDOW);
    if (from >= to) return;
    bodies.askedUpTo = to;
    const items = deliveries.slice(from, to).map((d): [number, string | null] => [d.outboxId, d.initiatorName]);
    const { template, secret } = hook;
    this.thread.call({ template, secret, mediaUrl, items }).then(
      (prepared) => {
        for (const [i, p] of prepared.entries())
          if (p) bodies.ready.set(deliveries[from + i].seq, { ...p, template, secret, mediaUrl });
      },
      // The thread is gone (stopping, or it died): the sending thread renders these itself.
      () => {},
    );
  }

  /** The body made ahead for `d`, if made with the webhook's template and secret as they are now and this media URL. */
  take(
    bodies: LaneBodies,
    d: DeliveryRow,
    hook: { template: string | null; secret: string },
    mediaUrl: string,
  ): Prepared | undefined {
    const p = bodies.ready.get(d.seq);
    if (!p) return undefined;
    bodies.ready.delete(d.seq);
    return p.template === hook.template && p.secret === hook.secret && p.mediaUrl === mediaUrl ? p : undefined;
  }
}
