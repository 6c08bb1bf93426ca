import type { Db } from '../db/sqlite.ts';

export interface ThumbnailJob {
  postId: string;
  /** `<id>.<ext>`: the image the thumbnails are made from */
  image: string;
  attempts: number;
}

/** A job that keeps failing (an unreadable file) stops being retried after this many attempts. */
export const MAX_THUMBNAIL_ATTEMPTS = 5;

/**
 * The durable thumbnail work queue (`thumbnail_jobs`). A post's job is queued in the post's own
 * transaction; whoever makes the thumbnails (the server's background runner, an on-demand request,
 * `imgpost rethumb`) marks it done. Claims are leases, so several processes can share the table.
 */
export class ThumbnailQueue {
  constructor(private readonly db: Db) {}

  /** Must run inside the post's unit of work (whose 'thumbnails.wanted' event wakes the runner). */
  enqueue(postId: string, image: string): void {
    if (!this.db.inTransaction) throw new Error('ThumbnailQueue.enqueue must run inside the post transaction');
    this.db
      .prepare('INSERT OR REPLACE INTO thumbnail_jobs (post_id, image, created_at) VALUES (?, ?, ?)')
      .run(postId, image, new Date().toISOString());
  }

  /**
   * Takes up to `limit` due jobs for `claimant`, oldest first, under a lease of `leaseMs`; with
   * `queuedAtLeastMs`, only jobs queued at least that long ago.
   */
  claim(claimant: string, limit: number, leaseMs: number, queuedAtLeastMs = 0): ThumbnailJob[] {
    const now = new Date();
    const nowIso = now.toISOString();
    const queuedBy = new Date(now.getTime() - queuedAtLeastMs).toISOString();
    return this.db
      .transaction(() => {
        const rows = this.db
          .prepare(
            `SELECT post_id, image, attempts FROM thumbnail_jobs
           WHERE attempts < ? AND (claimed_until IS NULL OR claimed_until < ?) AND (not_before IS NULL OR not_before <= ?)
             AND created_at <= ?
           ORDER BY created_at LIMIT ?`,
          )
          .all(MAX_THUMBNAIL_ATTEMPTS, nowIso, nowIso, queuedBy, limit) as {
          post_id: string;
          image: string;
          attempts: number;
        }[];
        const lease = this.db.prepare('UPDATE thumbnail_jobs SET claimed_by = ?, claimed_until = ? WHERE post_id = ?');
        const until = new Date(now.getTime() + leaseMs).toISOString();
        for (const r of rows) lease.run(claimant, until, r.post_id);
        return rows.map((r) => ({ postId: r.post_id, image: r.image, attempts: r.attempts }));
      })
      .immediate();
  }

  /** Whether any job could be claimed now (a read: no write lock). */
  hasDue(): boolean {
    const nowIso = new Date().toISOString();
    return (
      this.db
        .prepare(
          `SELECT 1 FROM thumbnail_jobs WHERE attempts < ? AND (claimed_until IS NULL OR claimed_until < ?)
           AND (not_before IS NULL OR not_before <= ?) LIMIT 1`,
        )
        .pluck()
        .get(MAX_THUMBNAIL_ATTEMPTS, nowIso, nowIso) !== undefined
    );
  }

  done(postId: string): void {
    this.db.prepare('DELETE FROM thumbnail_jobs WHERE post_id = ?').run(postId);
  }

  /** Releases the claim and schedules a retry with backoff. */
  failed(postId: string, error: string): void {
    this.db
      .prepare(
        `UPDATE thumbnail_jobs SET attempts = attempts + 1, last_error = ?, claimed_by = NULL, claimed_until = NULL,
         not_before = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (5 << min(attempts, 8)) || ' seconds') WHERE post_id = ?`,
      )
      .run(error.slice(0, 500), postId);
  }

  /**
   * Frees the jobs claimed by processes that no longer run (`isGone(claimant)`), so a server
   * restarted after a crash takes them up at once instead of when their lease runs out. Returns how many.
   */
  releaseClaims(isGone: (claimant: string) => boolean): number {
    const claimants = this.db
      .prepare('SELECT DISTINCT claimed_by FROM thumbnail_jobs WHERE claimed_by IS NOT NULL')
      .pluck()
      .all() as string[];
    const release = this.db.prepare(
      'UPDATE thumbnail_jobs SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?',
    );
    let released = 0;
    for (const claimant of claimants.filter(isGone)) released += release.run(claimant).changes;
    return released;
  }

  /** Whether the post's thumbnails are still to be made (a job queued, failed-for-good ones included). */
  isQueued(postId: string): boolean {
    return this.db.prepare('SELECT 1 FROM thumbnail_jobs WHERE post_id = ?').pluck().get(postId) !== undefined;
  }

  /** Whether the post's job will still run: queued and not given up after MAX_THUMBNAIL_ATTEMPTS failures. */
  willRun(postId: string): boolean {
    return (
      this.db
        .prepare('SELECT 1 FROM thumbnail_jobs WHERE post_id = ? AND attempts < ?')
        .pluck()
        .get(postId, MAX_THUMBNAIL_ATTEMPTS) !== undefined
    );
  }

  /** Jobs still to do (failed-for-good ones included). */
  size(): number {
    return this.db.prepare('SELECT count(*) FROM thumbnail_jobs').pluck().get() as number;
  }
}
