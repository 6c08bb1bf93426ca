import fs from 'node:fs';
import path from 'node:path';
import type { MediaStore } from '../media-store/media-store.ts';
import { MIME_BY_EXT } from '../media-store/formats.ts';
import type { Progress } from '../util/progress.ts';
import { RestoreRefused } from './restore.ts';

/**
 * Restore with MEDIA_STORE=s3: a snapshot holds the files themselves (files/<shard>/<name>, the
 * same keys as the bucket's), so they are restored into DATA_DIR/images as for the local store,
 * then put into the bucket and the local copies removed.
 */

/** Refuses, before anything is written, a store that already holds objects (as a DATA_DIR that is not empty). */
export async function assertStoreEmpty(store: MediaStore): Promise<void> {
  for await (const o of store.list('')) {
    throw new RestoreRefused(
      `the media store ${store.location} is not empty (it holds ${o.key}); restore only into an empty bucket or prefix`,
    );
  }
}

/**
 * Puts every restored file into the store (each put checked against the file's sha256), then removes DATA_DIR/images.
 */
export async function pushRestoredFiles(
  dataDir: string,
  store: MediaStore,
  progress: (total: number) => Progress,
): Promise<number> {
  const root = path.join(dataDir, 'images');
  const keys = fs.existsSync(root)
    ? fs.readdirSync(root).flatMap((shard) => fs.readdirSync(path.join(root, shard)).map((name) => `${shard}/${name}`))
    : [];
  const bar = progress(keys.length);
  let done = 0;
  const next = async (): Promise<void> => {
    for (let key = keys.pop(); key !== undefined; key = keys.pop()) {
      await store.put(
        key,
        { path: path.join(root, key) },
        { contentType: MIME_BY_EXT[key.slice(key.lastIndexOf('.') + 1)] ?? 'application/octet-stream' },
      );
      bar.update(++done);
    }
  };
  await Promise.all(Array.from({ length: 8 }, next));
  bar.done();
  fs.rmSync(root, { recursive: true, force: true });
  return done;
}
