import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../db/sqlite.ts';
import type { PostRepository } from '../../kernel/post-repository.ts';
import { THUMBNAIL_SIZES, thumbnailName, type ThumbnailSize } from '../../kernel/media-names.ts';
import { PendingFiles } from './pending-files.ts';

/** A thumbnail written to a temporary path, waiting to be moved in with its image. */
export interface TempThumbnail {
  size: ThumbnailSize;
  tempPath: string;
}

/**
 * Image files under DATA_DIR/images, sharded by the last two characters of the post id
 * (UUID v7 ids start with the time, so their tails spread evenly).
 * Every move in or out is journaled in `pending_files` until the post transaction settles it.
 * A post's thumbnails (`<id>.<size>.webp`) share its shard and its fate: they are journaled,
 * settled and removed together with the image, so no file outlives its row.
 */
export class ImageStore {
  readonly root: string;
  readonly tmpDir: string;
  private readonly pending: PendingFiles;

  constructor(
    dataDir: string,
    private readonly db: Db,
    /** whether a post exists: its repository owns that question */
    private readonly posts: Pick<PostRepository, 'exists'>,
  ) {
    this.root = path.join(dataDir, 'images');
    this.tmpDir = path.join(dataDir, 'tmp');
    this.pending = new PendingFiles(db);
    fs.mkdirSync(this.root, { recursive: true });
    fs.mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Absolute path of an image name `<id>.<ext>` or thumbnail name `<id>.<size>.webp`; the caller has validated the name. */
  pathOf(image: string): string {
    const id = image.slice(0, image.indexOf('.'));
    return path.join(this.root, id.slice(-2), image);
  }

  /** Every file that belongs to the post whose image this is: the image, then its thumbnails. */
  filesOf(image: string): string[] {
    const id = image.slice(0, image.indexOf('.'));
    return [this.pathOf(image), ...THUMBNAIL_SIZES.map((size) => this.pathOf(thumbnailName(id, size)))];
  }

  /** Call inside the post transaction: the file's fate is now that of the committed row. */
  settle(image: string): void {
    this.pending.remove(this.filesOf(image));
  }

  /**
   * Moves an uploaded temp file (and its temp thumbnails) to their final names, journaled until
   * `settle` runs in the post transaction.
   */
  adopt(tempPath: string, image: string, postId: string, thumbnails: TempThumbnail[] = []): string {
    const target = this.pathOf(image);
    const id = image.slice(0, image.indexOf('.'));
    const moves = [{ from: tempPath, to: target }, ...thumbnails.map((t) => ({ from: t.tempPath, to: this.pathOf(thumbnailName(id, t.size)) }))];
    fs.mkdirSync(path.dirname(target), { recursive: true });
    // Journal everything before the first rename: a crash part-way leaves only journaled files.
    this.db.transaction(() => moves.forEach((m) => this.pending.add(m.to, postId))).immediate();
    for (const m of moves) fs.renameSync(m.from, m.to);
    return target;
  }

  /** Undoes `adopt` after the post transaction failed. */
  discard(image: string): void {
    for (const file of this.filesOf(image)) fs.rmSync(file, { force: true });
    this.settle(image);
  }

  /** Call inside the delete transaction; `remove` unlinks after commit. */
  markForRemoval(image: string, postId: string): void {
    for (const file of this.filesOf(image)) this.pending.add(file, postId);
  }

  remove(image: string): void {
    for (const file of this.filesOf(image)) fs.rmSync(file, { force: true });
    this.settle(image);
  }

  /**
   * Puts regenerated thumbnails in place for an existing post (`imgpost rethumb`), which may run
   * beside a server deleting that post. The existence check and the renames happen under SQLite's
   * write lock, so no delete can commit in between: a thumbnail only ever appears while its row
   * exists, and a later delete removes it with the image. Returns false (temp files removed) when
   * the post is gone.
   */
  replaceThumbnails(image: string, postId: string, thumbnails: TempThumbnail[]): boolean {
    const id = image.slice(0, image.indexOf('.'));
    const kept = this.db.transaction(() => {
      if (!this.posts.exists(postId)) return false;
      fs.mkdirSync(path.dirname(this.pathOf(image)), { recursive: true });
      for (const t of thumbnails) fs.renameSync(t.tempPath, this.pathOf(thumbnailName(id, t.size)));
      return true;
    }).immediate();
    if (!kept) for (const t of thumbnails) fs.rmSync(t.tempPath, { force: true });
    return kept;
  }

  /**
   * Start-up recovery after a crash: journaled files whose post row does not reference them are
   * removed; temp uploads are cleared.
   */
  recover(): { removed: number; kept: number } {
    let removed = 0;
    let kept = 0;
    for (const row of this.pending.list()) {
      if (this.posts.exists(row.postId)) kept++;
      else {
        fs.rmSync(row.path, { force: true });
        removed++;
      }
      this.pending.remove([row.path]);
    }
    for (const f of fs.readdirSync(this.tmpDir)) fs.rmSync(path.join(this.tmpDir, f), { force: true, recursive: true });
    return { removed, kept };
  }
}
