import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * One server owns a DATA_DIR (docs/decisions.md §13). The lock is a kernel file lock, taken through SQLite's
 * exclusive locking mode on a small side file: the kernel drops it when the process dies, however it
 * dies (kill -9 included), so a lock left by a dead process is simply free again; no pid guessing.
 * Who holds it is written next to it (owner.json) so a second server can name the running one.
 */
const LOCK_FILE = 'server.lock';
const OWNER_FILE = 'server.owner.json';

export interface OwnerInfo {
  pid: number;
  host: string;
  /** the server's public URL, when known */
  url?: string;
  startedAt: string;
}

export class DataDirOwnedError extends Error {
  readonly owner: OwnerInfo | null;
  constructor(dataDir: string, owner: OwnerInfo | null) {
    super(
      owner
        ? `${dataDir} is in use by the imgpost server pid ${owner.pid} on ${owner.host}${owner.url ? ` (${owner.url})` : ''}, started ${owner.startedAt}`
        : `${dataDir} is in use by another imgpost server`,
    );
    this.name = 'DataDirOwnedError';
    this.owner = owner;
  }
}

export interface OwnerLock {
  readonly dataDir: string;
  /** records the URL the server listens on, for the message a second server prints */
  describe(url: string): void;
  release(): void;
}

function tryLock(dataDir: string): Database.Database | null {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock; EXCLUSIVE mode keeps it until the connection closes.
    db.exec(
      'BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS owner (taken_at TEXT); INSERT INTO owner VALUES (datetime()); COMMIT;',
    );
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
}

export function readOwner(dataDir: string): OwnerInfo | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_FILE), 'utf8')) as OwnerInfo;
  } catch {
    return null;
  }
}

/** Takes the DATA_DIR for this process or throws DataDirOwnedError naming the current owner. */
export function acquireOwnerLock(dataDir: string): OwnerLock {
  const db = tryLock(dataDir);
  if (!db) throw new DataDirOwnedError(dataDir, readOwner(dataDir));
  const info: OwnerInfo = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  const ownerPath = path.join(dataDir, OWNER_FILE);
  const write = () => fs.writeFileSync(ownerPath, `${JSON.stringify(info)}\n`);
  write();
  let released = false;
  return {
    dataDir,
    describe(url) {
      info.url = url;
      write();
    },
    release() {
      if (released) return;
      released = true;
      fs.rmSync(ownerPath, { force: true });
      db.close();
    },
  };
}

/** For jobs that need the directory idle (restore): the owner if a server holds it, else null. */
export function probeOwner(dataDir: string): { owned: false } | { owned: true; owner: OwnerInfo | null } {
  if (!fs.existsSync(path.join(dataDir, LOCK_FILE))) return { owned: false };
  const db = tryLock(dataDir);
  if (!db) return { owned: true, owner: readOwner(dataDir) };
  db.close();
  return { owned: false };
}
