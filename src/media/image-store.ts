import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/sqlite.ts';

/**
 * Image files under DATA_DIR/images, sharded by the last two characters of the post id
 * (UUID v7 ids start with the time, so their tails spread evenly).
 * Every move in or out is journaled in `pending_files` until the post transaction settles it.
 */
export class ImageStore {
  readonly root: string;
  readonly tmpDir: string;

  constructor(
    dataDir: string,
    private readonly db: Db,
  ) {
    this.root = path.join(dataDir, 'images');
    this.tmpDir = path.join(dataDir, 'tmp');
    fs.mkdirSync(this.root, { recursive: true });
    fs.mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Absolute path of an image name `<id>.<ext>`; the caller has validated the name. */
  pathOf(image: string): string {
    const id = image.slice(0, image.lastIndexOf('.'));
    return path.join(this.root, id.slice(-2), image);
  }

  private journal(file: string, postId: string): void {
    this.db.prepare('INSERT OR REPLACE INTO pending_files (path, post_id, created_at) VALUES (?, ?, ?)').run(file, postId, new Date().toISOString());
  }

  /** Call inside the post transaction: the file's fate is now that of the committed row. */
  settle(image: string): void {
    this.db.prepare('DELETE FROM pending_files WHERE path = ?').run(this.pathOf(image));
  }

  /** Moves an uploaded temp file to its final name, journaled until `settle` runs in the post transaction. */
  adopt(tempPath: string, image: string, postId: string): string {
    const target = this.pathOf(image);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    this.journal(target, postId);
    fs.renameSync(tempPath, target);
    return target;
  }

  /** Undoes `adopt` after the post transaction failed. */
  discard(image: string): void {
    fs.rmSync(this.pathOf(image), { force: true });
    this.settle(image);
  }

  /** Call inside the delete transaction; `remove` unlinks after commit. */
  markForRemoval(image: string, postId: string): void {
    this.journal(this.pathOf(image), postId);
  }

  remove(image: string): void {
    fs.rmSync(this.pathOf(image), { force: true });
    this.settle(image);
  }

  /**
   * Start-up recovery after a crash: journaled files whose post row does not reference them are
   * removed; temp uploads are cleared.
   */
  recover(): { removed: number; kept: number } {
    let removed = 0;
    let kept = 0;
    const rows = this.db.prepare('SELECT path, post_id FROM pending_files').all() as { path: string; post_id: string }[];
    const exists = this.db.prepare('SELECT 1 FROM posts WHERE id = ?').pluck();
    for (const row of rows) {
      if (exists.get(row.post_id)) kept++;
      else {
        fs.rmSync(row.path, { force: true });
        removed++;
      }
      this.db.prepare('DELETE FROM pending_files WHERE path = ?').run(row.path);
    }
    for (const f of fs.readdirSync(this.tmpDir)) fs.rmSync(path.join(this.tmpDir, f), { force: true, recursive: true });
    return { removed, kept };
  }
}
