import type { Db } from '../db/sqlite.ts';

export const REQUEST_STATUSES = ['pending', 'approved', 'dismissed', 'revoked', 'moot'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** A deletion request as the table holds it. */
export interface DeletionRequestRecord {
  id: number;
  postId: string;
  requesterId: number;
  requesterName: string;
  reason: string;
  status: RequestStatus;
  createdAt: string;
  decidedById: number | null;
  decidedByName: string | null;
  decidedAt: string | null;
}

const COLUMNS = `id, post_id AS postId, requester_id AS requesterId, requester_name AS requesterName, reason, status,
  created_at AS createdAt, decided_by_id AS decidedById, decided_by_name AS decidedByName, decided_at AS decidedAt`;

/** The one owner of the deletion_requests table (migration 010). */
export class DeletionRequestRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a pending request; undefined when the account already has one pending for the post. */
  insert(r: {
    postId: string;
    requesterId: number;
    requesterName: string;
    reason: string;
    createdAt: string;
  }): number | undefined {
    const info = this.db
      .prepare(
        `INSERT INTO deletion_requests (post_id, requester_id, requester_name, reason, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (post_id, requester_id) WHERE status = 'pending' DO NOTHING`,
      )
      .run(r.postId, r.requesterId, r.requesterName, r.reason, r.createdAt);
    return info.changes === 0 ? undefined : Number(info.lastInsertRowid);
  }

  get(id: number): DeletionRequestRecord | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM deletion_requests WHERE id = ?`).get(id) as
      | DeletionRequestRecord
      | undefined;
  }

  /** Newest first; `requesterId` limits the list to one account's requests. */
  list(
    filter: { status?: RequestStatus; requesterId?: number },
    offset: number,
    limit: number,
  ): { count: number; rows: DeletionRequestRecord[] } {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.status) {
      where.push('status = ?');
      args.push(filter.status);
    }
    if (filter.requesterId !== undefined) {
      where.push('requester_id = ?');
      args.push(filter.requesterId);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const count = this.db
      .prepare(`SELECT count(*) FROM deletion_requests ${clause}`)
      .pluck()
      .get(...args) as number;
    const rows =
      limit === 0
        ? []
        : (this.db
            .prepare(`SELECT ${COLUMNS} FROM deletion_requests ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`)
            .all(...args, limit, offset) as DeletionRequestRecord[]);
    return { count, rows };
  }

  /** Closes one pending request; false when it was no longer pending. */
  decide(
    id: number,
    status: Exclude<RequestStatus, 'pending'>,
    by: { id: number; name: string } | null,
    at: string,
  ): boolean {
    const info = this.db
      .prepare(
        `UPDATE deletion_requests SET status = ?, decided_by_id = ?, decided_by_name = ?, decided_at = ? WHERE id = ? AND status = 'pending'`,
      )
      .run(status, by?.id ?? null, by?.name ?? null, at, id);
    return info.changes === 1;
  }

  /** Every pending request for a post that is gone (approved, merged away) closes as moot. */
  closeMootFor(postId: string, by: { id: number; name: string } | null, at: string): number {
    return this.db
      .prepare(
        `UPDATE deletion_requests SET status = 'moot', decided_by_id = ?, decided_by_name = ?, decided_at = ? WHERE post_id = ? AND status = 'pending'`,
      )
      .run(by?.id ?? null, by?.name ?? null, at, postId).changes;
  }
}
