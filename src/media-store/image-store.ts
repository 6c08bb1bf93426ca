import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../db/sqlite.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import { THUMBNAIL_SIZES, thumbnailName, type ThumbnailSize } from '../kernel/media-names.ts';
import { MIME_BY_EXT } from './formats.ts';
import {
  locatorPrefix,
  mediaKey,
  StoreUnavailableError,
  type ByteRange,
  type MediaStore,
  type ObjectRead,
} from './media-store.ts';
import { PendingFiles } from './pending-files.ts';
import type { MediaStores } from './stores.ts';

/** A thumbnail written to a temporary path, waiting to be moved in with its image. */
export interface TempThumbnail {
  size: ThumbnailSize;
  tempPath: string;
}

/** Journal rows younger than this belong to writes that may still be in flight (the background sweep leaves them). */
export const SWEEP_GRACE_MS = 10 * 60_000;

const typeOf = (name: string) => MIME_BY_EXT[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';

/**
 * A post's image and thumbnails over the MediaStore (MEDIA_STORE: DATA_DIR/images or an S3 bucket,
 * docs/decisions.md §17), under the keys `<shard>/<name>` (mediaKey). This is the PostMedia contract of
 * media-store.ts. Every write in or removal out is journaled in `pending_files` (the key's locator:
 * the absolute path for the local store, as before, or `s3://bucket/prefix/key`) until the post
 * transaction settles it, so a crash or a failed commit leaves no object behind for long: `sweep`
 * (at start-up, and in the background for rows older than SWEEP_GRACE_MS) deletes every journaled
 * object whose post does not exist, and retries deletes that failed.
 * A post's thumbnails (`<id>.<size>.webp`) share its fate: journaled, settled and removed with it.
 *
 * The store is looked up on every operation (MediaStores: the `media_store` row of
 * `imgpost media migrate`, else MEDIA_STORE), so a live server follows a migration: a write picks
 * its store inside the transaction that journals it (a migration's switch, another write
 * transaction, is thus either before it or sees its journal rows); reads try the active store, then
 * the one a migration is copying from; deletes remove from both.
 */
export class ImageStore {
  readonly tmpDir: string;
  private readonly pending: PendingFiles;

  constructor(
    readonly stores: MediaStores,
    dataDir: string,
    private readonly db: Db,
    /** whether a post exists: its repository owns that question */
    private readonly posts: Pick<PostRepository, 'exists'>,
  ) {
    this.tmpDir = path.join(dataDir, 'tmp');
    this.pending = new PendingFiles(db);
    fs.mkdirSync(this.tmpDir, { recursive: true });
  }

  /** The store writes go to now. */
  get store(): MediaStore {
    return this.stores.current().active;
  }

  /** The active store, then the one a migration is copying from. */
  private all(): MediaStore[] {
    const { active, previous } = this.stores.current();
    return previous ? [active, previous] : [active];
  }

  /** The journal's name for a file: its locator in `store`. */
  private locatorOf(name: string, store: MediaStore = this.store): string {
    return store.locator(mediaKey(name));
  }

  /** The first store (active, then a migration's source) that holds the object. */
  private async holder(name: string): Promise<MediaStore | undefined> {
    for (const store of this.all()) if (await store.head(mediaKey(name))) return store;
    return undefined;
  }

  /** The local store's file of an image or thumbnail name (tools and tests of a local DATA_DIR); throws for S3. */
  pathOf(name: string): string {
    const store = this.store;
    if (store.kind !== 'local') throw new Error(`${store.location} has no local files`);
    return store.locator(mediaKey(name));
  }

  /** pathOf for each of a post's files. */
  filesOf(image: string): string[] {
    return this.namesOf(image).map((n) => this.pathOf(n));
  }

  /** Every file name that belongs to the post whose image this is: the image, then its thumbnails. */
  namesOf(image: string): string[] {
    const id = image.slice(0, image.indexOf('.'));
    return [image, ...THUMBNAIL_SIZES.map((size) => thumbnailName(id, size))];
  }

  /** Call inside the post transaction: the files' fate is now that of the committed row. */
  settle(image: string): void {
    for (const store of this.all()) this.pending.remove(this.namesOf(image).map((n) => this.locatorOf(n, store)));
  }

  /**
   * Puts an uploaded temp file (and any temp thumbnails) under their keys, journaled until `settle`
   * runs in the post transaction. The local store renames (as before: no copy); S3 puts and the temp
   * file stays for the caller to remove. A store failure throws StoreUnavailableError after undoing
   * what it could (the journal keeps the rest for `sweep`).
   */
  async adopt(tempPath: string, image: string, postId: string, thumbnails: TempThumbnail[] = []): Promise<void> {
    const id = image.slice(0, image.indexOf('.'));
    const moves = [
      { from: tempPath, name: image },
      ...thumbnails.map((t) => ({ from: t.tempPath, name: thumbnailName(id, t.size) })),
    ];
    // Journal everything before the first write: a crash part-way leaves only journaled objects.
    // The store is chosen in the same transaction (see the class comment).
    const store = this.db
      .transaction(() => {
        const active = this.store;
        moves.forEach((m) => this.pending.add(this.locatorOf(m.name, active), postId));
        return active;
      })
      .immediate();
    try {
      for (const m of moves) await this.putFile(store, m.from, m.name, true);
    } catch (err) {
      await this.discard(image);
      throw err;
    }
  }

  /** Local: rename (`move`) or copy; S3: put. */
  private async putFile(store: MediaStore, from: string, name: string, move: boolean): Promise<void> {
    const key = mediaKey(name);
    if (store.kind === 'local' && move) {
      const target = store.locator(key);
      try {
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await fsp.rename(from, target);
        return;
      } catch (err) {
        throw new StoreUnavailableError(store.location, `put ${key}`, 'server_error', err);
      }
    }
    await store.put(key, { path: from }, { contentType: typeOf(name) });
  }

  /** Undoes `adopt` after the post transaction failed; what cannot be deleted now stays journaled for `sweep`. */
  async discard(image: string): Promise<void> {
    await this.deleteJournaled(this.namesOf(image));
  }

  /** Call inside the delete transaction; `remove` deletes after commit. */
  markForRemoval(image: string, postId: string): void {
    for (const store of this.all())
      for (const name of this.namesOf(image)) this.pending.add(this.locatorOf(name, store), postId);
  }

  /** Deletes a deleted post's files; a failure leaves them journaled, and `sweep` retries. Never throws. */
  async remove(image: string): Promise<number> {
    return this.deleteJournaled(this.namesOf(image));
  }

  /** Deletes each object (from every current store) and unjournals it; returns how many failed (left journaled). */
  private async deleteJournaled(names: string[], stores = this.all()): Promise<number> {
    const results = await Promise.allSettled(
      stores.flatMap((store) =>
        names.map(async (name) => {
          await store.delete(mediaKey(name));
          this.pending.remove([this.locatorOf(name, store)]);
        }),
      ),
    );
    return results.filter((r) => r.status === 'rejected').length;
  }

  /** Whether the object of a file name exists (rethumb --missing, the thumbnail route). */
  async exists(name: string): Promise<boolean> {
    return (await this.holder(name)) !== undefined;
  }

  /** The object for GET /media; undefined when there is none. */
  async open(name: string, opts: { range?: ByteRange } = {}): Promise<ObjectRead | undefined> {
    const [active, previous] = this.all();
    return (await active.get(mediaKey(name), opts)) ?? (await previous?.get(mediaKey(name), opts));
  }

  /**
   * Runs `use` on a local file holding the image: the file itself for the local store, a temporary
   * copy for S3 (the image workers read files). Throws when the image does not exist.
   */
  async withLocalFile<T>(image: string, use: (file: string) => Promise<T>): Promise<T> {
    const store = await this.holder(image);
    if (!store) throw new Error(`image file ${image} is missing`);
    if (store.kind === 'local') return use(store.locator(mediaKey(image)));
    const read = await store.get(mediaKey(image));
    if (!read) throw new Error(`image file ${image} is missing`);
    const copy = path.join(this.tmpDir, `copy-${process.pid}-${Math.random().toString(36).slice(2)}-${image}`);
    try {
      await pipeline(read.body, fs.createWriteStream(copy));
      return await use(copy);
    } finally {
      await fsp.rm(copy, { force: true });
    }
  }

  /**
   * Puts regenerated thumbnails in place for an existing post (`imgpost rethumb`, the thumbnail
   * runner), which may run beside a delete of that post. The thumbnails are journaled, written,
   * then kept only if the post still exists, checked under SQLite's write lock so no delete commits
   * in between; a delete that committed meanwhile has them deleted here. Returns false when the post
   * is gone. The temp files are the caller's to remove.
   */
  async replaceThumbnails(image: string, postId: string, thumbnails: TempThumbnail[]): Promise<boolean> {
    const id = image.slice(0, image.indexOf('.'));
    const names = thumbnails.map((t) => thumbnailName(id, t.size));
    // The store is chosen inside the transaction that renames (local) or journals (S3): see the class comment.
    const picked = this.db
      .transaction((): boolean | MediaStore => {
        if (!this.posts.exists(postId)) return false;
        const store = this.store;
        if (store.kind === 'local') {
          // As before: renames under the write lock, so a thumbnail only ever appears while its row exists.
          fs.mkdirSync(path.dirname(store.locator(mediaKey(image))), { recursive: true });
          thumbnails.forEach((t, i) => fs.renameSync(t.tempPath, store.locator(mediaKey(names[i]))));
          return true;
        }
        names.forEach((n) => this.pending.add(this.locatorOf(n, store), postId));
        return store;
      })
      .immediate();
    if (typeof picked === 'boolean') return picked;
    const store = picked;
    try {
      for (const [i, t] of thumbnails.entries()) await this.putFile(store, t.tempPath, names[i], false);
    } catch (err) {
      // Of an existing post: a thumbnail is made again on its first request; the sweep settles the rows.
      if (!this.posts.exists(postId)) await this.deleteJournaled(names, [store]);
      throw err;
    }
    const kept = this.db
      .transaction(() => {
        const exists = this.posts.exists(postId);
        // Re-journaled: a delete's `remove` may have unjournaled them before these puts landed.
        if (exists) this.pending.remove(names.map((n) => this.locatorOf(n, store)));
        else names.forEach((n) => this.pending.add(this.locatorOf(n, store), postId));
        return exists;
      })
      .immediate();
    if (!kept) await this.deleteJournaled(names, [store]);
    return kept;
  }

  /**
   * Recovery (start-up, then in the background): every journal row whose post does not exist has
   * its object deleted (writes of a failed or interrupted upload, deletes that failed) and the row
   * removed; rows of existing posts are settled. `olderThanMs` leaves younger rows alone (writes in
   * flight). A store that is down leaves its rows for the next pass.
   */
  async sweep(opts: { olderThanMs?: number } = {}): Promise<{ removed: number; kept: number; failed: number }> {
    const result = { removed: 0, kept: 0, failed: 0 };
    const cutoff = Date.now() - (opts.olderThanMs ?? 0);
    // What each current store's locators start with (the key follows).
    const stores = this.all().map((store) => ({ store, prefix: locatorPrefix(store) }));
    for (const row of this.pending.list()) {
      if (Date.parse(row.createdAt) > cutoff) continue;
      if (this.posts.exists(row.postId)) {
        result.kept++;
        this.pending.remove([row.path]);
        continue;
      }
      // Rows of a store no longer in use (a finished `media migrate`'s old store) are left alone:
      // that store is the operator's to delete whole.
      const owner = stores.find((s) => row.path.startsWith(s.prefix));
      if (!owner) continue;
      try {
        await owner.store.delete(row.path.slice(owner.prefix.length));
        this.pending.remove([row.path]);
        result.removed++;
      } catch {
        result.failed++;
      }
    }
    return result;
  }

  /** Start-up recovery: the sweep with no grace period (only the owner runs it), and temp uploads cleared. */
  async recover(): Promise<{ removed: number; kept: number; failed: number }> {
    const result = await this.sweep();
    for (const f of fs.readdirSync(this.tmpDir)) fs.rmSync(path.join(this.tmpDir, f), { force: true, recursive: true });
    return result;
  }
}
