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
const WINDOW = 128;

/** What the other thread is asked: a lane's next deliveries, rendered with one template and signed with one secret. */
export interface BodiesRequest {
  template: string | null;
  secret: string;
  mediaUrl: string;
  /** [outbox id, initiator name] per delivery */
  items: [number, string | null][];
}

/** A body made ahead: its event, its post, the body (UTF-8) and its signature. */
export interface Prepared {
  event: PostEventKind;
  postId: string;
  body: Uint8Array;
  signature: string;
}

/**
 * A window's bodies as the other thread answers: one byte array and a few lists for the whole window
 * rather than an object and four strings per delivery, which cost both threads more to pass over than
 * the rest of a body's handling (bench/notes/webhook-drain.md).
 */
export interface PreparedBodies {
  /** every body made, as UTF-8, back to back */
  bytes: Uint8Array;
  /** delivery i's body is bytes[offsets[i], offsets[i + 1]) */
  offsets: Int32Array;
  /** SIGNATURE_CHARS per delivery, in order (blank for one not made) */
  signatures: string;
  /** per delivery: its event, or null when not made (the sending thread must see for itself) */
  events: (PostEventKind | null)[];
  postIds: (string | null)[];
}

/** An HMAC-SHA256 signature in hex. */
export const SIGNATURE_CHARS = 64;

/** One window's answer, with what its bodies were made with. */
interface Window {
  /** The lane's index of its first delivery, and one past its last */
  from: number;
  to: number;
  template: string | null;
  secret: string;
  mediaUrl: string;
  made: PreparedBodies;
}

/** A lane's share of it: the windows arrived and not yet used up (in lane order), and how far it has asked. */
export interface LaneBodies {
  windows: Window[];
  askedUpTo: number;
}

export const laneBodies = (): LaneBodies => ({ windows: [], askedUpTo: 0 });

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
    const items: [number, string | null][] = [];
    for (let i = from; i < to; i++) items.push([deliveries[i].outboxId, deliveries[i].initiatorName]);
    const { template, secret } = hook;
    this.thread.call({ template, secret, mediaUrl, items }).then(
      // Answered in the order asked, so the windows stay in lane order.
      (made) => bodies.windows.push({ from, to, template, secret, mediaUrl, made }),
      // The thread is gone (stopping, or it died): the sending thread renders these itself.
      () => {},
    );
  }

  /**
   * The body made ahead for the lane's delivery at `index`, if made with the webhook's template
   * and secret as they are now and this media URL. Windows before it are let go.
   */
  take(
    bodies: LaneBodies,
    index: number,
    hook: { template: string | null; secret: string },
    mediaUrl: string,
  ): Prepared | undefined {
    const { windows } = bodies;
    while (windows.length > 0 && windows[0].to <= index) windows.shift();
    const w = windows[0];
    if (!w || index < w.from) return undefined;
    const i = index - w.from;
    const { made } = w;
    const event = made.events[i];
    if (!event) return undefined;
    if (w.template !== hook.template || w.secret !== hook.secret || w.mediaUrl !== mediaUrl) return undefined;
    return {
      event,
      postId: made.postIds[i]!,
      body: made.bytes.subarray(made.offsets[i], made.offsets[i + 1]),
      signature: made.signatures.slice(i * SIGNATURE_CHARS, (i + 1) * SIGNATURE_CHARS),
    };
  }
}
