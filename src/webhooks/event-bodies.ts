/**
 * Recent events and their rendered bodies, for the dispatcher. Every webhook subscribed to an
 * event gets its own delivery, and webhooks drain side by side, so the same outbox row is read
 * and the same body rendered several times within moments: once per webhook with that template
 * (the default template is the common case). Outbox rows never change once written, and a
 * template renders the same data to the same text, so both are kept for a little while.
 * Bounded by count and by size; a template error is never kept (it is reported per delivery).
 */
import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import { eventDataFromOutbox } from './event-data.ts';
import { renderBody } from './service.ts';

const MAX_ROWS = 1024;
const MAX_BODY_CHARS = 4 * 1024 * 1024;

export class EventBodies {
  private readonly rows = new Map<number, OutboxRow>();
  private readonly bodies = new Map<string, string>();
  private bodyChars = 0;

  constructor(private readonly outbox: Outbox) {}

  row(id: number): OutboxRow | undefined {
    let row = this.rows.get(id);
    if (row) return row;
    row = this.outbox.get(id);
    if (!row) return undefined;
    // Oldest first out: Maps iterate in insertion order.
    if (this.rows.size >= MAX_ROWS) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(id, row);
    return row;
  }

  /** renderBody for this event as the webhook would see it; throws as renderBody does. */
  body(row: OutboxRow, initiatorName: string | null, template: string | null, mediaUrl: string): string {
    // Everything the body depends on; \u0000 cannot occur in the parts it separates.
    const key = `${row.id}\u0000${initiatorName ?? '\u0001'}\u0000${mediaUrl}\u0000${template ?? '\u0001'}`;
    let body = this.bodies.get(key);
    if (body !== undefined) return body;
    body = renderBody(template, eventDataFromOutbox(row, initiatorName, mediaUrl));
    if (body.length + key.length > MAX_BODY_CHARS) return body;
    this.bodies.set(key, body);
    this.bodyChars += body.length + key.length;
    for (const [k, b] of this.bodies) {
      if (this.bodyChars <= MAX_BODY_CHARS) break;
      this.bodies.delete(k);
      this.bodyChars -= b.length + k.length;
    }
    return body;
  }
}
