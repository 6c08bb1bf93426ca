import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { schemaVersion } from '../db/migrate.ts';
import { UserRepository } from '../accounts/user-repository.ts';
import { DATABASE_FILE } from '../db/sqlite.ts';
import { postRepositoryOn } from '../posts/post-tables.ts';
import { PendingFiles } from '../media-store/pending-files.ts';
import { WebhookRepository } from '../webhook-store/webhook-repository.ts';

/** All remaining pages in one backup step (better-sqlite3 clamps the step size to this). */
const ALL_PAGES = 0x7fffffff;

export interface DatabaseSnapshot {
  /** the moment the snapshot's read transaction saw the database */
  takenAt: Date;
  schemaVersion: number;
  /** every post in the snapshot: id and image file extension */
  posts: { id: string; ext: string }[];
  counts: { users: number; webhooks: number };
  /** leaves a post out of the snapshot (deleted on the live side before its file was copied) */
  dropPost(id: string): void;
  close(): void;
}

/**
 * Copies the live database (DATA_DIR/imgpost.sqlite, WAL) to `target` with SQLite's online backup API.
 *
 * The copy runs as ONE backup step, i.e. inside one read transaction. In WAL mode a reader never
 * blocks writers, so the server keeps committing uploads meanwhile; and the step sees one consistent
 * state. Copying in many small steps instead would restart from the first page whenever the server
 * (another connection) commits in between, which under steady uploads may never finish: measured
 * with a writer inserting all along, the stepped copy kept restarting and finished only once the
 * writer stopped, while the one-step copy finished with the writer barely slowed
 * (bench/notes/code-figures.md).
 */
export async function snapshotDatabase(dataDir: string, target: string): Promise<DatabaseSnapshot> {
  const sourceFile = path.join(dataDir, DATABASE_FILE);
  if (!fs.existsSync(sourceFile)) throw new Error(`no database at ${sourceFile} (is DATA_DIR right?)`);
  // Not openDatabase(): a backup must not migrate (or otherwise write) the live database.
  const source = new Database(sourceFile, { fileMustExist: true });
  let takenAt = new Date();
  try {
    source.pragma('busy_timeout = 5000');
    await source.backup(target, {
      progress: () => {
        takenAt = new Date();
        return ALL_PAGES;
      },
    });
  } finally {
    source.close();
  }

  const db = new Database(target);
  // The copy carries the WAL flag of its source; a backup is one file, no -wal/-shm beside it.
  db.pragma('journal_mode = DELETE');
  db.pragma('foreign_keys = ON');
  const check = db.pragma('quick_check', { simple: true });
  if (check !== 'ok') {
    db.close();
    throw new Error(`the database snapshot failed SQLite's quick_check: ${String(check)}`);
  }
  // Rows journaling files of writes in flight at snapshot time: their paths point into the source
  // DATA_DIR, and a restored server's start-up recovery would act on them. Their files are not
  // referenced by any post in the snapshot, so they are not in the backup either.
  new PendingFiles(db).clear();
  const users = new UserRepository(db);
  const postTable = postRepositoryOn(db, users);
  const posts = [...postTable.imageRefs()];
  return {
    takenAt,
    schemaVersion: schemaVersion(db),
    posts,
    counts: { users: users.count(), webhooks: new WebhookRepository(db).subscriptions.count() },
    // The copy's own row, not a change to the service's posts: nothing to index, version or announce.
    dropPost: (id) => void postTable.deleteById(id),
    close: () => void (db.open && db.close()),
  };
}
