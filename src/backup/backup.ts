import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SECRET_FILE } from '../accounts/session-cookie.ts';
import { DATABASE_FILE } from '../db/sqlite.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import type { Progress } from '../util/progress.ts';
import { imageName, THUMBNAIL_SIZES, thumbnailName } from '../kernel/media-names.ts';
import { snapshotDatabase, type DatabaseSnapshot } from './database-snapshot.ts';
import { lockDestination } from './dest-lock.ts';
import { createThrottle } from '../util/byte-rate.ts';
import { copyStreamHashed } from '../util/hashed-stream.ts';
import { copyHashed, hashFile, tryLink } from './files.ts';
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
  storedPath,
  writeFileAtomic,
} from './layout.ts';
import { FORMAT, FORMAT_VERSION, readManifest, type FileEntry, type Manifest } from './manifest.ts';
import { UserRepository } from '../accounts/user-repository.ts';
import { mediaKey, type MediaStore } from '../media/store/media-store.ts';

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

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Takes a snapshot of DATA_DIR into DEST while the server runs (layout in layout.ts): the database
 * first, then every file it references, then the manifest, then the rename that makes it complete.
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

interface CopyInput {
  dataDir: string;
  dir: string;
  snap: DatabaseSnapshot;
  prevDir: string | null;
  prev: Map<string, FileEntry>;
  maxBytesPerSecond: number;
  progress: (total: number) => Progress;
  media?: MediaStore;
}

interface CopyOutput {
  files: FileEntry[];
  missingThumbnails: string[];
  deletedDuringBackup: string[];
  copied: { files: number; bytes: number };
  linked: { files: number; bytes: number };
}

/**
 * Every image and thumbnail the snapshot references: hard-linked from the previous snapshot when the
 * source is unchanged (same size and mtime; images never change, thumbnails only by `rethumb`, which
 * writes a new file), copied otherwise.
 */
async function copyFiles(input: CopyInput): Promise<CopyOutput> {
  const { dataDir, dir, snap, prevDir, prev } = input;
  const out: CopyOutput = {
    files: [],
    missingThumbnails: [],
    deletedDuringBackup: [],
    copied: { files: 0, bytes: 0 },
    linked: { files: 0, bytes: 0 },
  };
  const throttle = createThrottle(input.maxBytesPerSecond);
  const perPost = 1 + THUMBNAIL_SIZES.length;
  const total = snap.posts.length * perPost;
  const progress = input.progress(total);
  progress.phase('files');
  // Asks the live database whether a post whose file vanished was deleted meanwhile.
  const live = new Database(path.join(dataDir, DATABASE_FILE), { fileMustExist: true });
  live.pragma('busy_timeout = 5000');
  const livePosts = new PostRepository(live, new UserRepository(live));
  let done = 0;

  /** Stores one file; false when the source does not exist. */
  const store = async (fileName: string): Promise<boolean> => {
    if (input.media) return storeObject(fileName, input.media);
    const rel = storedPath(fileName);
    const source = path.join(dataDir, 'images', rel.slice(rel.indexOf('/') + 1));
    const target = path.join(dir, rel);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(source);
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    const before = prev.get(rel);
    if (
      prevDir &&
      before &&
      before.bytes === stat.size &&
      before.mtimeMs === stat.mtimeMs &&
      tryLink(path.join(prevDir, rel), target)
    ) {
      out.files.push({ ...before, mtimeMs: stat.mtimeMs });
      out.linked.files++;
      out.linked.bytes += before.bytes;
      return true;
    }
    try {
      const copy = copyHashed(source, target);
      out.files.push({ path: rel, ...copy, mtimeMs: stat.mtimeMs });
      out.copied.files++;
      out.copied.bytes += copy.bytes;
      await throttle(copy.bytes);
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  };

  /** The same from an object store: unchanged objects (size and last-modified) linked, others downloaded. */
  const storeObject = async (fileName: string, media: MediaStore): Promise<boolean> => {
    const rel = storedPath(fileName);
    const target = path.join(dir, rel);
    const head = await media.head(mediaKey(fileName));
    if (!head) return false;
    const mtimeMs = head.lastModified?.getTime() ?? 0;
    const before = prev.get(rel);
    if (
      prevDir &&
      before &&
      before.bytes === head.size &&
      before.mtimeMs === mtimeMs &&
      tryLink(path.join(prevDir, rel), target)
    ) {
      out.files.push({ ...before, mtimeMs });
      out.linked.files++;
      out.linked.bytes += before.bytes;
      return true;
    }
    const read = await media.get(mediaKey(fileName));
    if (!read) return false;
    const copy = await copyStreamHashed(read.body, target, { sync: true });
    out.files.push({ path: rel, ...copy, mtimeMs });
    out.copied.files++;
    out.copied.bytes += copy.bytes;
    await throttle(copy.bytes);
    return true;
  };

  try {
    for (const post of snap.posts) {
      const names = [imageName(post), ...THUMBNAIL_SIZES.map((size) => thumbnailName(post.id, size))];
      const filesBefore = out.files.length;
      const missing: string[] = [];
      for (const [i, fileName] of names.entries()) {
        // No image: its thumbnails do not matter (the post is gone, or the backup fails below).
        if (!(await store(fileName))) missing.push(fileName);
        if (i === 0 && missing.length) break;
      }
      if (missing.length > 0) {
        if (!livePosts.exists(post.id)) {
          // Deleted after the snapshot: leave it out, as if the backup had been taken a moment later.
          for (const f of out.files.splice(filesBefore)) fs.rmSync(path.join(dir, f.path), { force: true });
          snap.dropPost(post.id);
          out.deletedDuringBackup.push(post.id);
        } else if (missing[0] === names[0]) {
          throw new Error(
            `the image file of post ${post.id} is missing from ${input.media?.location ?? path.join(dataDir, 'images')}; the backup would lack it`,
          );
        } else {
          out.missingThumbnails.push(...missing);
        }
      }
      done += perPost;
      progress.update(done);
    }
  } finally {
    live.close();
  }
  progress.done();
  // Directory entries of the new files, so they survive a power loss along with the manifest.
  const filesRoot = path.join(dir, 'files');
  if (fs.existsSync(filesRoot)) for (const shard of fs.readdirSync(filesRoot)) fsyncDir(path.join(filesRoot, shard));
  return out;
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
