import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/sqlite.ts';
import { DeliveryTable } from '../webhook-store/deliveries.ts';
import type { PostEventKind } from '../webhook-store/events.ts';
import type { PostRecord, Rating } from './post-record.ts';

export type { PostEventKind };
/** 'reindex' brings the index in step without being a change anyone made: no version, no webhook. */
export type OutboxEventKind = PostEventKind | 'reindex';

export interface PreviousMetadata {
  text: string;
  rating: Rating;
  tags: string[];
}

/** What an outbox row carries: the post after the change (before it, for delete). */
export interface OutboxPayload {
  post: PostRecord;
  previous?: PreviousMetadata;
}

export interface OutboxRow {
  id: number;
  event: OutboxEventKind;
  postId: string;
  postVersion: number;
  initiatorId: number | null;
  payload: OutboxPayload;
  createdAt: string;
}

interface RawRow {
  id: number;
  event: OutboxEventKind;
  post_id: string;
  post_version: number;
  initiator_id: number | null;
  payload: string;
  created_at: string;
}

const fromRaw = (r: RawRow): OutboxRow => ({
  id: r.id,
  event: r.event,
  postId: r.post_id,
  postVersion: r.post_version,
  initiatorId: r.initiator_id,
  payload: JSON.parse(r.payload) as OutboxPayload,
  createdAt: r.created_at,
});

/**
 * The transactional outbox: every post change appends a row in the change's own transaction
 * (through the unit of work, src/kernel/unit-of-work.ts, which also records what else the change sets off). The relay
 * brings Elasticsearch in step from it; webhook deliveries point at its rows.
 */
export class Outbox {
  /** Asked which rows deliveries still point at: the webhook tables are theirs to query. */
  private readonly deliveries: Pick<DeliveryTable, 'referencedOutboxIds'>;

  constructor(private readonly db: Db) {
    this.deliveries = new DeliveryTable(db, (sql) => db.prepare(sql));
  }

  /** Must be called inside a transaction. */
  append(
    event: OutboxEventKind,
    payload: OutboxPayload,
    initiatorId: number | null,
    postVersion = payload.post.version,
  ): OutboxRow {
    if (!this.db.inTransaction) throw new Error('Outbox.append must run inside the change transaction');
    const createdAt = new Date().toISOString();
    const info = this.db
      .prepare(
        'INSERT INTO outbox (event, post_id, post_version, initiator_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(event, payload.post.id, postVersion, initiatorId, JSON.stringify(payload), createdAt);
    return {
      id: Number(info.lastInsertRowid),
      event,
      postId: payload.post.id,
      postVersion,
      initiatorId,
      payload,
      createdAt,
    };
  }

  /** Prepared once: the webhook dispatcher reads rows for every window of deliveries it sends. */
  private getStatement: Statement | undefined;
  private getManyStatement: Statement | undefined;

  get(id: number): OutboxRow | undefined {
    this.getStatement ??= this.db.prepare('SELECT * FROM outbox WHERE id = ?');
    const r = this.getStatement.get(id) as RawRow | undefined;
    return r && fromRaw(r);
  }

  /**
   * The rows of these ids that exist, in one statement: the dispatcher reads a window of deliveries'
   * rows at a time, and reading them one by one cost a read transaction each.
   */
  getMany(ids: readonly number[]): OutboxRow[] {
    if (ids.length === 0) return [];
    this.getManyStatement ??= this.db.prepare('SELECT * FROM outbox WHERE id IN (SELECT value FROM json_each(?))');
    return (this.getManyStatement.all(JSON.stringify(ids)) as RawRow[]).map(fromRaw);
  }

  pending(limit: number): OutboxRow[] {
    return (
      this.db.prepare('SELECT * FROM outbox WHERE indexed_at IS NULL ORDER BY id LIMIT ?').all(limit) as RawRow[]
    ).map(fromRaw);
  }

  /** These posts' rows not yet applied to the index, oldest first. */
  pendingFor(postIds: readonly string[]): OutboxRow[] {
    if (postIds.length === 0) return [];
    return (
      this.db
        .prepare(
          'SELECT * FROM outbox WHERE indexed_at IS NULL AND post_id IN (SELECT value FROM json_each(?)) ORDER BY id',
        )
        .all(JSON.stringify(postIds)) as RawRow[]
    ).map(fromRaw);
  }

  /** Rows appended after `afterId` (reindex catches up with these). */
  since(afterId: number, limit: number): OutboxRow[] {
    return (
      this.db.prepare('SELECT * FROM outbox WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit) as RawRow[]
    ).map(fromRaw);
  }

  lastId(): number {
    return (this.db.prepare('SELECT coalesce(max(id), 0) FROM outbox').pluck().get() as number) ?? 0;
  }

  /** Not yet indexed posts' hashes: near-duplicate checks must see them too. */
  pendingCreates(): { postId: string; hash: string }[] {
    const rows = this.db
      .prepare("SELECT post_id, payload FROM outbox WHERE indexed_at IS NULL AND event = 'create'")
      .all() as { post_id: string; payload: string }[];
    return rows.map((r) => ({ postId: r.post_id, hash: (JSON.parse(r.payload) as OutboxPayload).post.hash }));
  }

  markIndexed(ids: number[]): void {
    const now = new Date().toISOString();
    const mark = this.db.prepare('UPDATE outbox SET indexed_at = ? WHERE id = ?');
    this.db.transaction(() => ids.forEach((id) => mark.run(now, id))).immediate();
  }

  markFailed(ids: number[], error: string): void {
    const mark = this.db.prepare('UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?');
    this.db.transaction(() => ids.forEach((id) => mark.run(error.slice(0, 500), id))).immediate();
  }

  /**
   * Retention: removes up to `limit` rows indexed and created before `before` that no webhook
   * delivery references any more (their deliveries were settled and pruned first). Unindexed rows
   * are never touched: the relay and the near-duplicate check still need them. Candidates are
   * read in id order a page at a time, skipping referenced ones, until `limit` are found.
   */
  pruneIndexed(before: string, limit: number): number {
    const candidates = this.db
      .prepare('SELECT id FROM outbox WHERE indexed_at IS NOT NULL AND created_at < ? AND id > ? ORDER BY id LIMIT ?')
      .pluck();
    const remove = this.db.prepare('DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))');
    return this.db
      .transaction(() => {
        const doomed: number[] = [];
        for (let after = 0; doomed.length < limit; ) {
          const page = candidates.all(before, after, limit) as number[];
          if (page.length === 0) break;
          const referenced = this.deliveries.referencedOutboxIds(page);
          for (const id of page) if (!referenced.has(id) && doomed.length < limit) doomed.push(id);
          after = page[page.length - 1];
        }
        return doomed.length === 0 ? 0 : remove.run(JSON.stringify(doomed)).changes;
      })
      .immediate();
  }

  backlog(): { count: number; oldestAgeMs: number } {
    const r = this.db
      .prepare('SELECT count(*) AS n, min(created_at) AS oldest FROM outbox WHERE indexed_at IS NULL')
      .get() as { n: number; oldest: string | null };
    return { count: r.n, oldestAgeMs: r.oldest ? Date.now() - Date.parse(r.oldest) : 0 };
  }
}
