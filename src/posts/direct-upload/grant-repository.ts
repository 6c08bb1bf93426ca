import type { Db } from '../../db/sqlite.ts';

/** A direct-upload grant as the table holds it (migration 013); times in ms since the epoch. */
export interface UploadGrant {
  id: string;
  userId: number;
  contentType: string;
  size: number | null;
  createdAt: number;
  expiresAt: number;
  claimedAt: number | null;
  /** the post the upload became */
  postId: string | null;
}

const COLUMNS =
  'id, user_id AS userId, content_type AS contentType, size, created_at AS createdAt, expires_at AS expiresAt, claimed_at AS claimedAt, post_id AS postId';

/** The one owner of the upload_grants table. */
export class UploadGrantRepository {
  constructor(private readonly db: Db) {}

  insert(g: Omit<UploadGrant, 'claimedAt' | 'postId'>): void {
    this.db
      .prepare(
        'INSERT INTO upload_grants (id, user_id, content_type, size, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(g.id, g.userId, g.contentType, g.size, g.createdAt, g.expiresAt);
  }

  get(id: string): UploadGrant | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM upload_grants WHERE id = ?`).get(id) as UploadGrant | undefined;
  }

  /**
   * Marks the grant as being claimed when it is the user's, unclaimed and not expired, in one
   * statement: two creates naming one key never both read it. False otherwise (the caller asks why).
   */
  claim(id: string, userId: number, now: number): boolean {
    return (
      this.db
        .prepare(
          'UPDATE upload_grants SET claimed_at = ? WHERE id = ? AND user_id = ? AND claimed_at IS NULL AND expires_at > ?',
        )
        .run(now, id, userId, now).changes === 1
    );
  }

  /** A create that failed (400, 409, 503): the key may be named again until it expires. */
  unclaim(id: string): void {
    this.db.prepare('UPDATE upload_grants SET claimed_at = NULL WHERE id = ?').run(id);
  }

  /** The create committed: the key is used for good. */
  used(id: string, postId: string): void {
    this.db.prepare('UPDATE upload_grants SET post_id = ? WHERE id = ?').run(postId, id);
  }

  remove(id: string): void {
    this.db.prepare('DELETE FROM upload_grants WHERE id = ?').run(id);
  }

  /**
   * Grants whose object may go at `now`: expired for longer than their lifetime or `maxMarginMs`,
   * whichever is shorter (a PUT begun just before the expiry may still be landing), and not claimed
   * since `claimedBefore` unless used (a claim younger than that may still be reading the object).
   * Until then a used grant stays too: its URL still takes PUTs, whose objects the sweep must find.
   */
  stale(now: number, claimedBefore: number, maxMarginMs: number, limit = 500): UploadGrant[] {
    return this.db
      .prepare(
        `SELECT ${COLUMNS} FROM upload_grants
         WHERE expires_at + MIN(?, expires_at - created_at) < ? AND (claimed_at IS NULL OR post_id IS NOT NULL OR claimed_at < ?)
         ORDER BY expires_at LIMIT ?`,
      )
      .all(maxMarginMs, now, claimedBefore, limit) as UploadGrant[];
  }
}
