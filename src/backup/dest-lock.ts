import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

const LOCK_FILE = 'backup.lock';

/**
 * One backup at a time per destination: a kernel lock through SQLite's exclusive locking mode (as
 * the DATA_DIR owner lock), so a backup killed with -9 leaves no stale lock, and the next run may
 * delete the partial snapshot it left.
 */
export function lockDestination(dest: string): { release(): void } {
  fs.mkdirSync(dest, { recursive: true });
  const db = new Database(path.join(dest, LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS backup (at TEXT); COMMIT;');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new Error(`another imgpost backup is writing to ${dest}`, { cause: err });
    }
    throw err;
  }
  return { release: () => db.close() };
}
