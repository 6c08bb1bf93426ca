import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileBody } from './file-body.ts';
import { ChecksumMismatchError, RangeNotSatisfiableError, StoreUnavailableError } from './media-store.ts';
import type {
  ByteRange,
  ListedObject,
  MediaStore,
  ObjectRead,
  PutOptions,
  PutSource,
  StoredObject,
} from './media-store.ts';

/**
 * The local media store (`MEDIA_STORE=local`, the default): DATA_DIR/images/<shard>/<name>, the
 * layout of today's ImageStore, so an existing data directory is already a local store and a key's
 * locator is the absolute path that `pending_files` holds today.
 *
 * A put copies into a temp file beside the target, fsyncs it and renames it into place (never a
 * partial file under the key); temp files start with `.put-` and are not listed. The ETag is the one
 * GET /media sends today (`"<post id>-<size in hex>"`: a post's file never changes under its name).
 * No presigned URLs: direct uploads need an S3 store.
 */
export class LocalMediaStore implements MediaStore {
  readonly kind = 'local' as const;
  readonly location: string;

  constructor(readonly root: string) {
    this.root = path.resolve(root);
    this.location = `local:${this.root}`;
    fs.mkdirSync(this.root, { recursive: true });
  }

  /** The file of a key: also what a journal row holds. */
  locator(key: string): string {
    if (
      key === '' ||
      key.startsWith('/') ||
      /(^|\/)\.{1,2}(\/|$)|\\|\0/.test(key) ||
      path.basename(key).startsWith('.put-')
    )
      throw new Error(`invalid media key ${JSON.stringify(key)}`);
    return path.join(this.root, key);
  }

  private etag(key: string, size: number): string {
    return `"${path.basename(key).slice(0, 36)}-${size.toString(16)}"`;
  }

  /** Disk errors other than "no such file" mean the store cannot serve: 503, as an S3 store would. */
  private failure(operation: string, err: unknown): never {
    throw new StoreUnavailableError(this.location, operation, 'server_error', err);
  }

  async put(key: string, source: PutSource, opts: PutOptions): Promise<StoredObject> {
    const target = this.locator(key);
    const temp = path.join(path.dirname(target), `.put-${randomBytes(6).toString('hex')}`);
    const sha = createHash('sha256');
    let size = 0;
    try {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const out = await fsp.open(temp, 'wx', 0o644);
      try {
        const write = async (chunk: Buffer) => {
          sha.update(chunk);
          size += chunk.length;
          await out.write(chunk);
        };
        if ('buffer' in source) await write(source.buffer);
        else
          await pipeline(fs.createReadStream(source.path), async (chunks: AsyncIterable<Buffer>) => {
            for await (const c of chunks) await write(c);
          });
        await out.sync();
      } finally {
        await out.close();
      }
      const sha256 = sha.digest('hex');
      if (opts.sha256 !== undefined && opts.sha256.toLowerCase() !== sha256)
        throw new ChecksumMismatchError(key, opts.sha256, sha256);
      await fsp.rename(temp, target);
      return { key, size, etag: this.etag(key, size), sha256, contentType: opts.contentType };
    } catch (err) {
      await fsp.rm(temp, { force: true });
      // A wrong checksum, or a source file that is not there, is the caller's error, not the store's.
      if (
        err instanceof ChecksumMismatchError ||
        ((err as NodeJS.ErrnoException).code === 'ENOENT' && 'path' in source && !fs.existsSync(source.path))
      )
        throw err;
      this.failure(`put ${key}`, err);
    }
  }

  async head(key: string): Promise<StoredObject | undefined> {
    const file = this.locator(key);
    const stat = await fsp
      .stat(file)
      .catch((err: NodeJS.ErrnoException) =>
        err.code === 'ENOENT' || err.code === 'ENOTDIR' ? undefined : this.failure(`head ${key}`, err),
      );
    if (!stat?.isFile()) return undefined;
    return { key, size: stat.size, etag: this.etag(key, stat.size), lastModified: stat.mtime };
  }

  async get(key: string, opts: { range?: ByteRange } = {}): Promise<ObjectRead | undefined> {
    const head = await this.head(key);
    if (!head) return undefined;
    let range: { start: number; end: number } | undefined;
    if (opts.range) {
      const r = opts.range;
      range =
        'suffix' in r
          ? { start: Math.max(0, head.size - r.suffix), end: head.size - 1 }
          : { start: r.start, end: Math.min(r.end ?? head.size - 1, head.size - 1) };
      if (range.start > range.end || range.start >= head.size) throw new RangeNotSatisfiableError(head.size);
    }
    const length = range ? range.end - range.start + 1 : head.size;
    return { ...head, body: fileBody(this.locator(key), range?.start ?? 0, length), range, length };
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.locator(key), { force: true }).catch((err) => this.failure(`delete ${key}`, err));
  }

  async *list(prefix: string, opts: { startAfter?: string } = {}): AsyncIterable<ListedObject> {
    // Keys are `<shard>/<name>`, so two levels suffice; sorted as S3 sorts keys (by code unit).
    const sorted = (names: string[]) => names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const dirs = sorted(await fsp.readdir(this.root).catch(() => [] as string[]));
    for (const dir of dirs) {
      if (!`${dir}/`.startsWith(prefix) && !prefix.startsWith(`${dir}/`)) continue;
      const names = sorted(await fsp.readdir(path.join(this.root, dir)).catch(() => [] as string[]));
      for (const name of names) {
        const key = `${dir}/${name}`;
        if (
          name.startsWith('.put-') ||
          !key.startsWith(prefix) ||
          (opts.startAfter !== undefined && key <= opts.startAfter)
        )
          continue;
        const stat = await fsp.stat(path.join(this.root, key)).catch(() => undefined);
        if (stat?.isFile()) yield { key, size: stat.size, etag: this.etag(key, stat.size), lastModified: stat.mtime };
      }
    }
  }

  async check(): Promise<void> {
    await fsp.access(this.root, fs.constants.W_OK).catch((err) => this.failure('check', err));
  }

  close(): void {}
}
