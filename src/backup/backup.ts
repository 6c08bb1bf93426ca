import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_FILE } from '../accounts/session-cookie.ts';
import type { Progress } from '../util/progress.ts';
import { copyFiles, type CopyOutput } from './copy-files.ts';
import { snapshotDatabase, type DatabaseSnapshot } from './database-snapshot.ts';
import { lockDestination } from './dest-lock.ts';
import { copyHashed, hashFile } from './files.ts';
import {
  completeDir,
  DB_FILE,
  fsyncDir,
  LATEST_FILE,
  latestSnapshot,
  listPartials,
  listSnapshots,
  MANIFEST_FILE,
  partialDir,
  SECRET_COPY,
  snapshotName,
  writeFileAtomic,
} from './layout.ts';
import { FORMAT, FORMAT_VERSION, readManifest, type FileEntry, type Manifest } from './manifest.ts';
import type { MediaStore } from '../media-store/media-store.ts';

export interface BackupOptions {
  dataDir: string;
  dest: string;
  /** copy DATA_DIR/session-secret too */
  includeSecrets: boolean;
  /** copy at most this many bytes per second (0: no limit) */
  maxBytesPerSecond: number;
  /** keep only the newest N complete snapshots (0: keep all) */
  keep: number;
  progress: (total: number) => Progress;
  /** one-line notes for the operator (stderr) */
  note?: (line: string) => void;
  /**
   * MEDIA_STORE=s3: the objects are read from the bucket by key (the snapshot's files/<shard>/<name>
   * layout is the same, so a snapshot restores into either kind of store). Unset: DATA_DIR/images.
   */
  media?: MediaStore;
}

export interface BackupResult {
  snapshot: string;
  path: string;
  createdAt: string;
  schemaVersion: number;
  posts: number;
  files: number;
  bytes: number;
  /** files read from DATA_DIR this time */
  copied: { files: number; bytes: number };
  /** unchanged files hard-linked from the previous snapshot */
  linked: { files: number; bytes: number };
  database: { bytes: number };
  missingThumbnails: number;
  deletedDuringBackup: number;
  sessionSecret: 'included' | 'not included';
  pruned: string[];
  ms: number;
}

/**
 * Takes a snapshot of DATA_DIR into DEST while the server runs (layout in layout.ts): the database
 * first, then every file it references (copy-files.ts), then the manifest, then the rename that makes it complete.
 */
export async function backup(opts: BackupOptions): Promise<BackupResult> {
  const started = Date.now();
  const dataDir = path.resolve(opts.dataDir);
  const dest = path.resolve(opts.dest);
  const inside = path.relative(dataDir, dest);
  if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside)))
    throw new Error(`the destination ${dest} is inside DATA_DIR ${dataDir}`);

  const lock = lockDestination(dest);
  try {
    for (const stale of listPartials(dest)) fs.rmSync(stale, { recursive: true, force: true });
    const prevDir = latestSnapshot(dest);
    const prev = new Map<string, FileEntry>((prevDir ? readManifest(prevDir).files : []).map((f) => [f.path, f]));

    const name = snapshotName(new Date());
    const dir = partialDir(dest, name);
    fs.mkdirSync(dir, { recursive: true });
    let snap: DatabaseSnapshot | undefined;
    try {
      const dbStarted = Date.now();
      snap = await snapshotDatabase(dataDir, path.join(dir, DB_FILE));
      const dbMb = (fs.statSync(path.join(dir, DB_FILE)).size / 1024 / 1024).toFixed(1);
      opts.note?.(
        `database snapshot (${dbMb} MB, ${snap.posts.length} posts) as of ${snap.takenAt.toISOString()} in ${Date.now() - dbStarted} ms`,
      );
      const result = await copyFiles({ ...opts, dataDir, dir, snap, prevDir, prev });
      const manifest = finish({ ...opts, dataDir, dir, snap, ...result });
      fs.renameSync(dir, completeDir(dest, name));
      fsyncDir(path.dirname(dir));
      writeFileAtomic(path.join(dest, LATEST_FILE), `${name}\n`);
      const pruned = opts.keep > 0 ? listSnapshots(dest).slice(0, -opts.keep) : [];
      for (const old of pruned) fs.rmSync(completeDir(dest, old), { recursive: true, force: true });
      return {
        snapshot: name,
        path: completeDir(dest, name),
        createdAt: manifest.createdAt,
        schemaVersion: manifest.schemaVersion,
        posts: manifest.counts.posts,
        files: manifest.counts.files,
        bytes: manifest.counts.bytes,
        copied: result.copied,
        linked: result.linked,
        database: { bytes: manifest.database.bytes },
        missingThumbnails: manifest.missingThumbnails.length,
        deletedDuringBackup: manifest.deletedDuringBackup.length,
        sessionSecret: manifest.sessionSecret ? 'included' : 'not included',
        pruned,
        ms: Date.now() - started,
      };
    } catch (err) {
      snap?.close();
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  } finally {
    lock.release();
  }
}

interface FinishInput extends CopyOutput {
  dataDir: string;
  dir: string;
  snap: DatabaseSnapshot;
  includeSecrets: boolean;
  note?: (line: string) => void;
}

/** Seals the snapshot: secret (if asked), database checksum, and the manifest, written last. */
function finish(input: FinishInput): Manifest {
  const { dir, snap } = input;
  const posts = snap.posts.length - input.deletedDuringBackup.length;
  snap.close();
  let sessionSecret: Manifest['sessionSecret'];
  if (input.includeSecrets) {
    const secretFile = path.join(input.dataDir, SECRET_FILE);
    if (fs.existsSync(secretFile)) {
      const copy = copyHashed(secretFile, path.join(dir, SECRET_COPY));
      fs.chmodSync(path.join(dir, SECRET_COPY), 0o600);
      sessionSecret = { path: SECRET_COPY, ...copy };
    } else
      input.note?.(`no ${secretFile}: the session secret comes from SESSION_SECRET; keep that value with your backups`);
  }
  const db = hashFile(path.join(dir, DB_FILE));
  const manifest: Manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    createdAt: snap.takenAt.toISOString(),
    finishedAt: new Date().toISOString(),
    schemaVersion: snap.schemaVersion,
    source: { dataDir: input.dataDir, host: os.hostname() },
    counts: {
      posts,
      ...snap.counts,
      files: input.files.length,
      bytes: input.files.reduce((sum, f) => sum + f.bytes, 0),
    },
    database: { path: DB_FILE, ...db },
    files: input.files,
    ...(sessionSecret ? { sessionSecret } : {}),
    missingThumbnails: input.missingThumbnails,
    deletedDuringBackup: input.deletedDuringBackup,
  };
  writeFileAtomic(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
  return manifest;
}
