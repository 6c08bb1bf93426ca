/**
 * Recent events and their rendered bodies, for the dispatcher. Every webhook subscribed to an
 * event gets its own delivery, and webhooks drain side by side, so the same outbox row is read
 * and the same body rendered several times within moments: once per webhook with that template
 * (the default template is the common case). Outbox rows never change once written, and a
 * template renders the same data to the same text, so both are kept for a little while.
 * Bounded by count and by size; a template error is never kept (it is reported per delivery).
 */
import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import { eventDataFromOutbox, type EventPayload } from './event-data.ts';
import { renderBody } from './service.ts';

const MAX_ROWS = 1024;
/** Bodies kept at most, in bytes of body plus characters of key and template. */
const MAX_KEPT_SIZE = 4 * 1024 * 1024;

export class EventBodies {
  private readonly rows = new Map<number, OutboxRow>();
  /** Rendered bodies (UTF-8) by template (null: the default), then by event data (see body()). */
  private readonly bodies = new Map<string | null, Map<string, Buffer>>();
  /** The bodies kept, oldest first, to evict by size. */
  private readonly order: { template: string | null; dataKey: string; size: number }[] = [];
  private keptSize = 0;
  private readonly payloads = new Map<string, EventPayload>();

  constructor(private readonly outbox: Outbox) {}

  /** Reads the rows of these ids not kept yet in one statement, so that row() finds them (a window's worth). */
  prefetch(ids: readonly number[]): void {
    const missing = [...new Set(ids.filter((id) => !this.rows.has(id)))];
    for (const row of this.outbox.getMany(missing.slice(0, MAX_ROWS))) this.keep(row);
  }

  row(id: number): OutboxRow | undefined {
    let row = this.rows.get(id);
    if (row) return row;
    row = this.outbox.get(id);
    if (!row) return undefined;
    this.keep(row);
    return row;
  }

  private keep(row: OutboxRow): void {
    // Oldest first out: Maps iterate in insertion order.
    if (this.rows.size >= MAX_ROWS) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(row.id, row);
  }

  /**
   * renderBody for this event as the webhook would see it, as the UTF-8 bytes sent (made once for
   * every webhook with the template); throws as renderBody does.
   */
  body(row: OutboxRow, initiatorName: string | null, template: string | null, mediaUrl: string): Buffer {
    // Everything the body depends on: the template, and the event's data (one key; \u0000 cannot
    // occur in the parts it separates). Kept per template rather than in the key, so a long
    // template is not copied into a new key for every delivery.
    const dataKey = `${row.id}\u0000${initiatorName ?? '\u0001'}\u0000${mediaUrl}`;
    let perTemplate = this.bodies.get(template);
    let body = perTemplate?.get(dataKey);
    if (body !== undefined) return body;
    body = Buffer.from(renderBody(template, this.data(row, dataKey, initiatorName, mediaUrl)));
    const size = body.length + dataKey.length + (template?.length ?? 0);
    if (size > MAX_KEPT_SIZE) return body;
    if (!perTemplate) this.bodies.set(template, (perTemplate = new Map()));
    perTemplate.set(dataKey, body);
    this.order.push({ template, dataKey, size });
    this.keptSize += size;
    while (this.keptSize > MAX_KEPT_SIZE) {
      const oldest = this.order.shift()!;
      const map = this.bodies.get(oldest.template)!;
      map.delete(oldest.dataKey);
      if (map.size === 0) this.bodies.delete(oldest.template);
      this.keptSize -= oldest.size;
    }
    return body;
  }

  /** The event's template data, shared by the webhooks with different templates (the last few events). */
  private data(row: OutboxRow, dataKey: string, initiatorName: string | null, mediaUrl: string): EventPayload {
    let data = this.payloads.get(dataKey);
    if (data) return data;
    data = eventDataFromOutbox(row, initiatorName, mediaUrl);
    if (this.payloads.size >= MAX_ROWS) this.payloads.delete(this.payloads.keys().next().value!);
    this.payloads.set(dataKey, data);
    return data;
  }
}
