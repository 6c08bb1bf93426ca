/** SQLite access for the `webhooks` table: the subscriptions their owners manage. */
import crypto from 'node:crypto';
import type { Db } from '../db/sqlite.ts';
import type { Statement } from '../db/statements.ts';
import { normaliseEvents, type PostEventKind } from './events.ts';

export type WebhookState = 'active' | 'suspended';

export interface WebhookRow {
  id: string;
  ownerId: number;
  label: string | null;
  url: string;
  secret: string;
  events: PostEventKind[];
  template: string | null;
  state: WebhookState;
  failureCount: number;
  lastDeliveryAt: string | null;
  lastResponseStatus: number | null;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryTarget = Pick<WebhookRow, 'id' | 'url' | 'secret' | 'template' | 'state'>;

export type NewWebhook = Pick<WebhookRow, 'ownerId' | 'label' | 'url' | 'secret' | 'events' | 'template'>;

export type WebhookPatch = Partial<Pick<NewWebhook, 'label' | 'url' | 'secret' | 'events' | 'template'>>;

interface RawWebhook {
  id: string;
  owner_id: number;
  label: string | null;
  url: string;
  secret: string;
  events: string;
  template: string | null;
  state: WebhookState;
  failure_count: number;
  last_delivery_at: string | null;
  last_response_status: number | null;
  created_at: string;
  updated_at: string;
}

const fromRaw = (r: RawWebhook): WebhookRow => ({
  id: r.id,
  ownerId: r.owner_id,
  label: r.label,
  url: r.url,
  secret: r.secret,
  events: JSON.parse(r.events) as PostEventKind[],
  template: r.template,
  state: r.state,
  failureCount: r.failure_count,
  lastDeliveryAt: r.last_delivery_at,
  lastResponseStatus: r.last_response_status,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Delivery targets kept between changes to the database (see SubscriptionTable.target). */
const MAX_TARGETS = 4096;

export class SubscriptionTable {
  private readonly targets = new Map<string, DeliveryTarget | undefined>();
  private targetsVersion = -1;
  private targetsChanges = -1;

  constructor(
    private readonly db: Db,
    /** shared with the other webhook tables: the dispatcher reads a target for every delivery */
    private readonly stmt: (sql: string) => Statement,
  ) {}

  /** Inserts unless the owner already has `limit` webhooks; returns undefined when at the limit. */
  insertWithin(limit: number, w: NewWebhook): WebhookRow | undefined {
    return this.db
      .transaction(() => {
        if (this.countByOwner(w.ownerId) >= limit) return undefined;
        const id = crypto.randomUUID();
        const now = new Date().toISOString();
        this.db
          .prepare(
            `INSERT INTO webhooks (id, owner_id, label, url, secret, events, template, state, failure_count, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'active', 0, ?, ?)`,
          )
          .run(
            id,
            w.ownerId,
            w.label,
            w.url,
            w.secret,
            JSON.stringify(normaliseEvents(w.events)),
            w.template,
            now,
            now,
          );
        return this.get(id)!;
      })
      .immediate();
  }

  countByOwner(ownerId: number): number {
    return this.db.prepare('SELECT count(*) FROM webhooks WHERE owner_id = ?').pluck().get(ownerId) as number;
  }

  /** How many webhooks there are (a backup's manifest counts them). */
  count(): number {
    return this.db.prepare('SELECT count(*) FROM webhooks').pluck().get() as number;
  }

  get(id: string): WebhookRow | undefined {
    const r = this.stmt('SELECT * FROM webhooks WHERE id = ?').get(id) as RawWebhook | undefined;
    return r && fromRaw(r);
  }

  /**
   * SQLite's `data_version`: it moves when another connection (another thread; another process, such
   * as the CLI) commits. Reading it begins a read transaction, the cost of a small query.
   */
  dataVersion(): number {
    return this.stmt('PRAGMA data_version').pluck().get() as number;
  }

  /**
   * What sending to a webhook needs, asked before every delivery (so an edit, a suspension or a
   * deletion applies to the next one): no more. The rows read are kept until the database changes:
   * `version` is dataVersion() as the caller read it (the dispatcher reads it once per turn of its
   * event loop, see dispatcher.ts), and `total_changes()` moves when this connection writes anything at all
   * (a cascade included, since the statement that causes it counts).
   */
  target(id: string, version: number): DeliveryTarget | undefined {
    const changes = this.stmt('SELECT total_changes()').pluck().get() as number;
    if (version !== this.targetsVersion || changes !== this.targetsChanges || this.targets.size >= MAX_TARGETS) {
      this.targets.clear();
      this.targetsVersion = version;
      this.targetsChanges = changes;
    }
    let t = this.targets.get(id);
    if (t === undefined && !this.targets.has(id)) {
      t = this.stmt('SELECT id, url, secret, template, state FROM webhooks WHERE id = ?').get(id) as
        | DeliveryTarget
        | undefined;
      this.targets.set(id, t);
    }
    return t;
  }

  /** Only the owner's: anyone else's webhook is as good as absent. */
  getOwned(id: string, ownerId: number): WebhookRow | undefined {
    const w = this.get(id);
    return w && w.ownerId === ownerId ? w : undefined;
  }

  listByOwner(ownerId: number): WebhookRow[] {
    return (
      this.db.prepare('SELECT * FROM webhooks WHERE owner_id = ? ORDER BY created_at, id').all(ownerId) as RawWebhook[]
    ).map(fromRaw);
  }

  /** Ids of the active webhooks subscribed to `event` (a change queues one delivery for each). */
  activeFor(event: PostEventKind): string[] {
    return this.stmt(
      `SELECT id FROM webhooks w WHERE state = 'active'
         AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?)`,
    )
      .pluck()
      .all(event) as string[];
  }

  update(id: string, patch: WebhookPatch): WebhookRow | undefined {
    const sets: string[] = [];
    const values: unknown[] = [];
    const column = { label: 'label', url: 'url', secret: 'secret', events: 'events', template: 'template' } as const;
    for (const key of Object.keys(column) as (keyof typeof column)[]) {
      if (patch[key] === undefined) continue;
      sets.push(`${column[key]} = ?`);
      values.push(key === 'events' ? JSON.stringify(normaliseEvents(patch.events!)) : patch[key]);
    }
    if (sets.length > 0) {
      this.db
        .prepare(`UPDATE webhooks SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`)
        .run(...values, new Date().toISOString(), id);
    }
    return this.get(id);
  }

  delete(id: string): boolean {
    // Deliveries and attempts go with it (ON DELETE CASCADE).
    return this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
  }

  /** Suspended → active with a clean slate; queued deliveries were dropped at suspension. */
  reactivate(id: string): WebhookRow | undefined {
    this.db
      .prepare("UPDATE webhooks SET state = 'active', failure_count = 0, updated_at = ? WHERE id = ?")
      .run(new Date().toISOString(), id);
    return this.get(id);
  }

  /** Every webhook's id (retention walks their attempts one webhook at a time). */
  ids(): string[] {
    return this.db.prepare('SELECT id FROM webhooks').pluck().all() as string[];
  }

  /** A webhook's failure tally, read once per batch of results. */
  tally(id: string): { failureCount: number; state: WebhookState } | undefined {
    return this.stmt('SELECT failure_count AS failureCount, state FROM webhooks WHERE id = ?').get(id) as
      | { failureCount: number; state: WebhookState }
      | undefined;
  }

  /** Writes a webhook's tally as a batch of results leaves it. */
  writeTally(
    id: string,
    t: { failureCount: number; state: WebhookState; lastDeliveryAt: string | null; lastResponseStatus: number | null },
  ): void {
    this.stmt(
      'UPDATE webhooks SET failure_count = ?, state = ?, last_delivery_at = ?, last_response_status = ? WHERE id = ?',
    ).run(t.failureCount, t.state, t.lastDeliveryAt, t.lastResponseStatus, id);
  }
}
