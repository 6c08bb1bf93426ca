import fs from 'node:fs';
import path from 'node:path';

/**
 * The layout of a backup destination (docs/operations/backups.md):
 *
 *   DEST/latest                      the name of the newest complete snapshot (one line)
 *   DEST/snapshots/<time>/           one complete snapshot, self-contained:
 *       manifest.json                written last: counts, sizes, sha256 of every file
 *       imgpost.sqlite               the database as it was at <time>
 *       files/<shard>/<name>         every image and thumbnail that database references
 *       session-secret               only with --include-secrets
 *   DEST/snapshots/.partial-<time>/  a snapshot being written (or left by a killed run)
 *   DEST/backup.lock                 held by the running backup (dest-lock.ts)
 *
 * Unchanged files are hard links to the previous snapshot's, so each snapshot costs only what
 * changed, yet any snapshot directory can be copied or deleted on its own.
 */
export const MANIFEST_FILE = 'manifest.json';
export const LATEST_FILE = 'latest';
export const SNAPSHOTS_DIR = 'snapshots';
export const FILES_DIR = 'files';
export const DB_FILE = 'imgpost.sqlite';
export const SECRET_COPY = 'session-secret';
const PARTIAL_PREFIX = '.partial-';

/** Sortable, filesystem-safe: 2026-11-23T18-40-49-123Z */
export const snapshotName = (at: Date): string => at.toISOString().replace(/[:.]/g, '-');

export const snapshotsDir = (dest: string): string => path.join(dest, SNAPSHOTS_DIR);
export const partialDir = (dest: string, name: string): string =>
  path.join(snapshotsDir(dest), `${PARTIAL_PREFIX}${name}`);
export const completeDir = (dest: string, name: string): string => path.join(snapshotsDir(dest), name);

/** Where a stored file lives inside a snapshot: files/<shard>/<name>, the shard as in DATA_DIR/images. */
export function storedPath(name: string): string {
  const id = name.slice(0, name.indexOf('.'));
  return path.posix.join(FILES_DIR, id.slice(-2), name);
}

/** The newest complete snapshot's directory, or null (a fresh destination). */
export function latestSnapshot(dest: string): string | null {
  let name: string;
  try {
    name = fs.readFileSync(path.join(dest, LATEST_FILE), 'utf8').trim();
  } catch {
    return null;
  }
  const dir = completeDir(dest, name);
  return name && !name.startsWith('.') && fs.existsSync(path.join(dir, MANIFEST_FILE)) ? dir : null;
}

/** Complete snapshot names, oldest first. */
export function listSnapshots(dest: string): string[] {
  try {
    return fs
      .readdirSync(snapshotsDir(dest))
      .filter((n) => !n.startsWith('.') && fs.existsSync(path.join(completeDir(dest, n), MANIFEST_FILE)))
      .sort();
  } catch {
    return [];
  }
}

/** Partial snapshots left by killed runs. Only call while holding the destination lock. */
export function listPartials(dest: string): string[] {
  try {
    return fs
      .readdirSync(snapshotsDir(dest))
      .filter((n) => n.startsWith(PARTIAL_PREFIX))
      .map((n) => path.join(snapshotsDir(dest), n));
  } catch {
    return [];
  }
}

/** Writes a small file so that readers see the old or the new content, never a torn one. */
export function writeFileAtomic(file: string, content: string, mode = 0o644): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

/** Makes a rename or a new entry in `dir` durable. */
export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
