/**
 * The image work an upload does before its answer (docs/decisions.md §4): both thumbnails and the robust
 * descriptor, from one task on the pool and one decode, so the 201 means the post is whole: its
 * thumbnails are in place and its document carries the descriptor's terms. The thumbnails go into the
 * store with the image (`ImageStore.adopt`, journaled until the post commits) and the descriptor is
 * stored in the post's own transaction, so a crash leaves either none of it or all of it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HashPool } from '../hashing/pool.ts';
import { THUMBNAIL_SIZES } from '../kernel/media-names.ts';
import type { TempThumbnail } from '../media-store/image-store.ts';
import { encodeDescriptor } from '../robust/format.ts';

export interface UploadWorkDeps {
  hashPool: HashPool;
  /** where the thumbnails are written before they move in with the image */
  tmpDir: string;
  /** make the thumbnails (off only in tests that stage a post whose thumbnails are still queued) */
  thumbnails: boolean;
  /** compute the robust descriptor (ROBUST_DESCRIPTORS) */
  descriptor: boolean;
}

/** What an upload made before its insert; `discard` removes whatever temp file is left. */
export interface MadeWithUpload {
  thumbnails: TempThumbnail[];
  /** the encoded descriptor (posts.robust) */
  robust?: Buffer;
  discard(): void;
}

export class UploadWork {
  constructor(private readonly deps: UploadWorkDeps) {}

  /**
   * The thumbnails (to temp files) and descriptor of an accepted image, at urgent priority: the
   * uploader waits for them. Throws as the pool does (a 503 when it is full); nothing is kept then.
   */
  async make(file: string): Promise<MadeWithUpload> {
    const { hashPool, tmpDir } = this.deps;
    const tag = crypto.randomBytes(8).toString('hex');
    const thumbnails: TempThumbnail[] = this.deps.thumbnails
      ? THUMBNAIL_SIZES.map((size) => ({ size, tempPath: path.join(tmpDir, `upload-${tag}.${size}.webp`) }))
      : [];
    const discard = () => {
      for (const t of thumbnails) fs.rmSync(t.tempPath, { force: true });
    };
    try {
      if (thumbnails.length > 0) {
        const made = await hashPool.thumbnails(
          file,
          thumbnails.map((t) => ({ size: t.size, path: t.tempPath })),
          'urgent',
          { descriptor: this.deps.descriptor },
        );
        return { thumbnails, robust: made.descriptor && encodeDescriptor(made.descriptor), discard };
      }
      if (this.deps.descriptor)
        return { thumbnails, robust: encodeDescriptor(await hashPool.robust(file, 'urgent')), discard };
      return { thumbnails, discard };
    } catch (err) {
      discard();
      throw err;
    }
  }
}
