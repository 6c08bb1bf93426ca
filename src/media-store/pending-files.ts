import type { Db } from '../db/sqlite.ts';

/**
 * The `pending_files` journal: a file moved in or about to be removed is listed here until the
 * post transaction that decides its fate commits (ImageStore.settle). `path` is the store's locator of the object's key
 * (an absolute path for the local store). After a crash, start-up
 * recovery reads what is left.
 */
export class PendingFiles {
  constructor(private readonly db: Db) {}

  add(file: string, postId: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO pending_files (path, post_id, created_at) VALUES (?, ?, ?)')
      .run(file, postId, new Date().toISOString());
  }

  remove(files: Iterable<string>): void {
    const unjournal = this.db.prepare('DELETE FROM pending_files WHERE path = ?');
    for (const file of files) unjournal.run(file);
  }

  list(): { path: string; postId: string; createdAt: string }[] {
    return this.db.prepare('SELECT path, post_id AS postId, created_at AS createdAt FROM pending_files').all() as {
      path: string;
      postId: string;
      createdAt: string;
    }[];
  }

  /**
   * Forgets every entry. A backup's copy of the database does this: its entries name files of
   * writes in flight in the source DATA_DIR, which a restored server's recovery must not act on.
   */
  clear(): void {
    this.db.prepare('DELETE FROM pending_files').run();
  }
}
