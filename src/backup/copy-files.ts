import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UserRepository } from '../accounts/user-repository.ts';
import { DATABASE_FILE } from '../db/sqlite.ts';
import { imageName, THUMBNAIL_SIZES, thumbnailName } from '../kernel/media-names.ts';
import { postRepositoryOn } from '../posts/post-tables.ts';
import { mediaKey, type MediaStore } from '../media-store/media-store.ts';
import { createThrottle } from '../util/byte-rate.ts';
import { copyStreamHashed } from '../util/hashed-stream.ts';
import type { Progress } from '../util/progress.ts';
import type { DatabaseSnapshot } from './database-snapshot.ts';
import { copyHashed, tryLink } from './files.ts';
import { fsyncDir, storedPath } from './layout.ts';
import type { FileEntry } from './manifest.ts';

/** A backup's second step (backup.ts): the files its database snapshot references, into the snapshot. */

export interface CopyInput {
  dataDir: string;
  dir: string;
  snap: DatabaseSnapshot;
  prevDir: string | null;
  prev: Map<string, FileEntry>;
  maxBytesPerSecond: number;
  progress: (total: number) => Progress;
  media?: MediaStore;
}

export interface CopyOutput {
  files: FileEntry[];
  missingThumbnails: string[];
  deletedDuringBackup: string[];
  copied: { files: number; bytes: number };
  linked: { files: number; bytes: number };
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Every image and thumbnail the snapshot references: hard-linked from the previous snapshot when the
 * source is unchanged (same size and mtime; images never change, thumbnails only by `rethumb`, which
 * writes a new file), copied otherwise.
 */
export async function copyFiles(input: CopyInput): Promise<CopyOutput> {
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
  const livePosts = postRepositoryOn(live, new UserRepository(live));
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
