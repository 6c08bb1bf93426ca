/**
 * What the kernel announces after a write has committed, and nothing else: the unit of work
 * (unit-of-work.ts) publishes these; the composition root (src/roles/wiring.ts) says who reacts.
 * Every reaction is to work already made durable in the same transaction (an outbox row, a queued
 * delivery, a thumbnail job, a pending descriptor), so a reaction that is missed — the process dies,
 * nobody listens in a CLI job — only delays it until a background loop polls.
 */
import type { OutboxRow } from './outbox.ts';

export interface KernelEventMap {
  /** Files of deleted posts, to remove from the media store (a failure leaves them journaled). */
  'images.released': { images: readonly string[] };
  /** Webhook deliveries were queued: the dispatcher sends them. */
  'deliveries.queued': { count: number };
  /** New posts' thumbnail jobs were queued: the thumbnailer makes them. */
  'thumbnails.wanted': { postIds: readonly string[] };
  /**
   * Post changes were recorded in the outbox: the relay makes them searchable. `awaited`: a request
   * answers once they are (the relay applies them at once); otherwise they join its next pass.
   */
  'posts.changed': { rows: readonly OutboxRow[]; awaited: boolean };
  /** New posts wait for their robust descriptor: the descriptor runner computes it. */
  'descriptors.wanted': { postIds: readonly string[] };
}

export type KernelEventName = keyof KernelEventMap;
export type KernelListener<K extends KernelEventName> = (payload: KernelEventMap[K]) => unknown;

/**
 * The order a write's events are published in, each awaited before the next: files go before the
 * change becomes searchable (as a delete always did), and a new post's descriptor is wanted only
 * once the post is searchable, so the version a create answers with is the create's own.
 */
export const EVENT_ORDER: readonly KernelEventName[] = [
  'images.released',
  'deliveries.queued',
  'thumbnails.wanted',
  'posts.changed',
  'descriptors.wanted',
];

export class KernelEvents {
  private readonly listeners: { [K in KernelEventName]?: KernelListener<K>[] } = {};

  /** `onError` hears a listener's failure: the write has committed, so it is logged, not thrown. */
  constructor(private readonly onError: (event: KernelEventName, err: unknown) => void = () => {}) {}

  on<K extends KernelEventName>(event: K, listener: KernelListener<K>): void {
    const list = (this.listeners[event] ??= []) as KernelListener<K>[];
    list.push(listener);
  }

  /** Calls every listener of `event` and waits for those that return a promise. */
  async publish<K extends KernelEventName>(event: K, payload: KernelEventMap[K]): Promise<void> {
    const list = (this.listeners[event] ?? []) as KernelListener<K>[];
    const results = await Promise.allSettled(list.map(async (listener) => listener(payload)));
    for (const r of results) if (r.status === 'rejected') this.onError(event, r.reason);
  }
}
