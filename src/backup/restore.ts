import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SECRET_FILE } from '../accounts/session-cookie.ts';
import { acquireOwnerLock, probeOwner, type OwnerLock } from '../db/owner-lock.ts';
import { listMigrations } from '../db/migrate.ts';
import { DATABASE_FILE } from '../db/sqlite.ts';
import { imageName } from '../kernel/media-names.ts';
import { postRepositoryOn } from '../posts/post-tables.ts';
import type { Progress } from '../util/progress.ts';
import { copyHashed } from './files.ts';
import { FILES_DIR, fsyncDir, latestSnapshot, MANIFEST_FILE, storedPath } from './layout.ts';
import { readManifest, ManifestError, type Entry, type Manifest } from './manifest.ts';
import { UserRepository } from '../accounts/user-repository.ts';

/** A refusal the operator fixes (one line, exit 1), as opposed to a crash. */
export class RestoreRefused extends Error {}

/** Where a restore assembles DATA_DIR's contents before moving them in; a killed restore's leftover. */
const STAGING = '.restoring';

// The owner lock's own files (present in a DATA_DIR a server once used) and a killed restore's
// staging directory are not data.
const ignored = (name: string) => name.startsWith('server.') || name === STAGING;

function firstFile(dir: string, top = true): string | null {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (top && ignored(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (!entry.isDirectory()) return full;
    const inner = firstFile(full, false);
    if (inner) return inner;
  }
  return null;
}

/**
 * Takes DATA_DIR for the restore: refused when a server owns it or it holds any file. The lock is
 * the server's own, so no server can start on the directory while it is being filled.
 */
export function claimEmptyDataDir(dataDir: string): OwnerLock {
  const probe = probeOwner(dataDir);
  if (probe.owned)
    throw new RestoreRefused(
      probe.owner
        ? `DATA_DIR ${dataDir} is in use by the imgpost server pid ${probe.owner.pid} on ${probe.owner.host}; stop it and use an empty directory`
        : `DATA_DIR ${dataDir} is in use by an imgpost server`,
    );
  const lock = acquireOwnerLock(dataDir);
  const file = firstFile(dataDir);
  if (file) {
    lock.release();
    throw new RestoreRefused(
      `DATA_DIR ${dataDir} is not empty (it holds ${path.relative(dataDir, file)}); restore only into an empty directory`,
    );
  }
  fs.rmSync(path.join(dataDir, STAGING), { recursive: true, force: true });
  return lock;
}

/** SRC is a snapshot directory (with manifest.json) or a backup destination (its latest snapshot). */
export function resolveSnapshot(src: string): { dir: string; manifest: Manifest } {
  const dir = fs.existsSync(path.join(src, MANIFEST_FILE)) ? src : latestSnapshot(src);
  if (!dir)
    throw new ManifestError(
      `${src} holds no complete backup (no ${MANIFEST_FILE} and no finished snapshot named by latest)`,
    );
  const manifest = readManifest(dir);
  const newest = Math.max(0, ...listMigrations().map((m) => m.version));
  if (manifest.schemaVersion > newest)
    throw new ManifestError(
      `the backup's database has schema version ${manifest.schemaVersion}; this imgpost knows up to ${newest}: restore with a newer release`,
    );
  if (manifest.counts.files !== manifest.files.length)
    throw new ManifestError(`the manifest lists ${manifest.files.length} files but counts ${manifest.counts.files}`);
  return { dir, manifest };
}

export interface RestoreResult {
  snapshot: string;
  createdAt: string;
  schemaVersion: number;
  posts: number;
  files: number;
  bytes: number;
  sessionSecret: 'restored' | 'not in backup';
  missingThumbnails: number;
}

/**
 * Copies a snapshot into the (claimed, empty) DATA_DIR. Everything is assembled in DATA_DIR/.restoring
 * first, each file checked against the manifest's sha256 as it is copied, and every post of the
 * database checked to have its image; only then is it moved in, the database last. A failed restore
 * removes what it wrote; a killed one leaves only .restoring, which the next restore clears.
 */
export function restoreSnapshot(
  snapshot: { dir: string; manifest: Manifest },
  dataDir: string,
  progress: (total: number) => Progress,
): RestoreResult {
  const { dir, manifest } = snapshot;
  const stage = path.join(dataDir, STAGING);
  const put = (entry: Entry, target: string) => {
    let got;
    try {
      got = copyHashed(path.join(dir, entry.path), target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new ManifestError(`${entry.path} is listed in the manifest but missing from ${dir}`);
      throw err;
    }
    if (got.sha256 !== entry.sha256 || got.bytes !== entry.bytes)
      throw new ManifestError(
        `${path.join(dir, entry.path)} does not match its checksum in the manifest: the backup is damaged`,
      );
  };
  try {
    fs.mkdirSync(stage, { recursive: true });
    const bar = progress(manifest.files.length);
    bar.phase('files');
    const images = path.join(stage, 'images');
    fs.mkdirSync(images);
    for (const [i, f] of manifest.files.entries()) {
      // files/<shard>/<name> → images/<shard>/<name>
      put(f, path.join(images, path.relative(FILES_DIR, f.path)));
      bar.update(i + 1);
    }
    bar.done();
    for (const shard of fs.readdirSync(images)) fsyncDir(path.join(images, shard));
    if (manifest.sessionSecret) {
      put(manifest.sessionSecret, path.join(stage, SECRET_FILE));
      fs.chmodSync(path.join(stage, SECRET_FILE), 0o600);
    }
    put(manifest.database, path.join(stage, DATABASE_FILE));
    checkImages(path.join(stage, DATABASE_FILE), images);
    fsyncDir(stage);

    fs.renameSync(images, path.join(dataDir, 'images'));
    if (manifest.sessionSecret) fs.renameSync(path.join(stage, SECRET_FILE), path.join(dataDir, SECRET_FILE));
    fs.renameSync(path.join(stage, DATABASE_FILE), path.join(dataDir, DATABASE_FILE));
    fsyncDir(dataDir);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  return {
    snapshot: dir,
    createdAt: manifest.createdAt,
    schemaVersion: manifest.schemaVersion,
    posts: manifest.counts.posts,
    files: manifest.files.length,
    bytes: manifest.counts.bytes,
    sessionSecret: manifest.sessionSecret ? 'restored' : 'not in backup',
    missingThumbnails: manifest.missingThumbnails.length,
  };
}

/** Every post in the restored database has its image file (thumbnails can be made again). */
function checkImages(dbFile: string, images: string): void {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    for (const p of postRepositoryOn(db, new UserRepository(db)).imageRefs()) {
      const name = imageName(p);
      if (!fs.existsSync(path.join(images, path.relative(FILES_DIR, storedPath(name)))))
        throw new ManifestError(`the backup's database has post ${p.id} but the backup lacks its image ${name}`);
    }
  } finally {
    db.close();
  }
}
