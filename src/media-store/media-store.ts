import type { Readable } from 'node:stream';
import { AppError } from '../errors.ts';

/**
 * Where a post's image and thumbnails live (docs/decisions.md §17, issue 26): the local directory
 * (`MEDIA_STORE=local`, DATA_DIR/images, the default) or an S3-compatible bucket
 * (`MEDIA_STORE=s3://bucket/prefix`). Two layers:
 *
 * - `MediaStore` (this file, implemented by s3-store.ts, and by a local one over DATA_DIR/images):
 *   plain object operations on keys, every one of them idempotent, none of them aware of posts or of
 *   the database. Slow or dead stores fail within a time-out with `StoreUnavailableError`.
 * - `PostMedia` (the contract below; ImageStore in src/media-store/image-store.ts is its synchronous local
 *   form today): a post's files with their journal in `pending_files`, built on a MediaStore. It is
 *   what uploads, deletes, thumbnails, `rethumb`, import and the start-up recovery use.
 *
 * Keys are the same in every store: `<shard>/<name>`, the shard being the last two characters of the
 * post id (as the directories under DATA_DIR/images today), so `imgpost media migrate` copies keys
 * one for one and a backup's `files/<shard>/<image>` layout is unchanged.
 */

/**
 * `<shard>/<name>` for an image name `<id>.<ext>` or a thumbnail name `<id>.<size>.webp`; the caller has validated the
 * name.
 */
export function mediaKey(name: string): string {
  const id = name.slice(0, name.indexOf('.'));
  return `${id.slice(-2)}/${name}`;
}

/** What every locator of a store starts with, the key following (to tell which store a journal row names). */
export function locatorPrefix(store: MediaStore): string {
  const probe = store.locator('00/x');
  return probe.slice(0, -'00/x'.length);
}

/** The bytes to store: a file (read, never moved or removed) or a buffer. */
export type PutSource = { path: string } | { buffer: Buffer };

export interface PutOptions {
  contentType: string;
  /** The sha256 (hex) the caller expects: a source with other bytes is refused before anything is written. */
  sha256?: string;
  /** Default `public, max-age=31536000, immutable` (an object never changes under its key). */
  cacheControl?: string;
}

export interface StoredObject {
  key: string;
  /** Bytes. */
  size: number;
  /** The store's entity tag, quotes included (S3: the MD5 of a single-part upload). */
  etag: string;
  /** Hex sha256 of the bytes, recorded by `put` (absent on objects written otherwise, e.g. by a direct upload). */
  sha256?: string;
  contentType?: string;
  lastModified?: Date;
}

/** A byte range, both ends inclusive (`end` omitted: to the end), or the last `suffix` bytes. */
export type ByteRange = { start: number; end?: number } | { suffix: number };

export interface ObjectRead extends StoredObject {
  /** The bytes asked for; the caller must consume or destroy it. */
  body: Readable;
  /** Set when a range was asked for: the bytes `body` holds (inclusive), `size` being the whole object's. */
  range?: { start: number; end: number };
  /** Bytes in `body`. */
  length: number;
}

export interface ListedObject {
  key: string;
  size: number;
  etag?: string;
  lastModified?: Date;
}

/** A request a client makes itself, without the store's credentials. */
export interface PresignedRequest {
  method: 'GET' | 'PUT';
  url: string;
  /** Headers the client must send exactly as given (they are part of the signature). */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface MediaStore {
  readonly kind: 'local' | 's3';
  /**
   * `local:/abs/dir` or `s3://bucket/prefix/`: names the store in logs, in `media migrate` and in a backup's manifest.
   */
  readonly location: string;
  /** What a journal row (`pending_files.path`) holds for a key: the store's location and the key. */
  locator(key: string): string;

  /** Writes the object whole (never a partial object under the key), replacing any. */
  put(key: string, source: PutSource, opts: PutOptions): Promise<StoredObject>;
  /** undefined when there is no such object; throws `RangeNotSatisfiableError` for a range past its end. */
  get(key: string, opts?: { range?: ByteRange }): Promise<ObjectRead | undefined>;
  head(key: string): Promise<StoredObject | undefined>;
  /** Succeeds when the object is already gone. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in key order (orphan cleanup, migration, backup). */
  list(prefix: string, opts?: { startAfter?: string }): AsyncIterable<ListedObject>;

  /**
   * A short-lived URL that reads the object (GET /media's redirect); absent on the local store.
   * `signingDate` (default now) makes the URL reproducible: the same key, date and life give the same URL.
   */
  presignGet?(
    key: string,
    opts: { expiresIn: number; signingDate?: Date; responseContentType?: string; responseCacheControl?: string },
  ): Promise<PresignedRequest>;
  /**
   * The origin presigned URLs point at (a page's CSP must allow it when GET /media redirects); absent on the local
   * store.
   */
  readonly publicOrigin?: string;
  /**
   * A short-lived URL a client puts the object to (direct uploads). With `contentLength` the client
   * must send exactly that many bytes; the content type is always part of the signature. Absent on
   * the local store.
   */
  presignPut?(
    key: string,
    opts: { expiresIn: number; contentType: string; contentLength?: number },
  ): Promise<PresignedRequest>;

  /** Resolves when the store answers and the bucket is there (readiness); else throws `StoreUnavailableError`. */
  check(): Promise<void>;
  /** Frees connections; the store is not used afterwards. */
  close(): void;
}

/** Why a store operation failed without an answer about the object itself. */
export type StoreFailure =
  | 'timeout' // no answer within the store's time-out
  | 'unreachable' // connection refused, reset, or the name does not resolve
  | 'server_error' // 5xx, or throttled (503 SlowDown) past the retries
  | 'denied' // credentials refused or lacking a permission (403)
  | 'misconfigured'; // the bucket does not exist

/**
 * The store failed: 503 for the request that needed it, nothing acknowledged lost. Code
 * 'store_unavailable' (503 in src/http/errors.ts); `details` says which store, which operation and
 * why, for the log.
 */
export class StoreUnavailableError extends AppError {
  constructor(
    readonly store: string,
    readonly operation: string,
    readonly reason: StoreFailure,
    override readonly cause?: unknown,
  ) {
    super(
      'store_unavailable',
      `the image store is unavailable (${reason.replace('_', ' ')}); try again shortly`,
      { store, operation, reason },
      1,
    );
    this.name = 'StoreUnavailableError';
  }

  /** One line for the log: what failed, where, and the underlying error. */
  describe(): string {
    const under = this.cause instanceof Error ? `: ${this.cause.name} ${this.cause.message}` : '';
    return `${this.operation} on ${this.store} failed (${this.reason})${under}`;
  }
}

/** A range past the object's end: the route answers 416 with `Content-Range: bytes *\/size`. */
export class RangeNotSatisfiableError extends Error {
  constructor(readonly size: number) {
    super(`range not satisfiable (object is ${size} bytes)`);
    this.name = 'RangeNotSatisfiableError';
  }
}

/** A source whose bytes do not match the sha256 the caller gave: nothing was written. */
export class ChecksumMismatchError extends Error {
  constructor(
    readonly key: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`sha256 of the bytes for ${key} is ${actual}, expected ${expected}`);
    this.name = 'ChecksumMismatchError';
  }
}

/**
 * A post's files over a MediaStore, journaled in `pending_files` (column `path` holds
 * `store.locator(key)`) so that no object outlives its row for long. The journaling rules of
 * ImageStore carry over; what changes is that writes and removals are asynchronous and may fail:
 *
 * - `adopt`: journal every key (one transaction), then put the image and any thumbnails made so far.
 *   A failed put throws StoreUnavailableError (the upload answers 503) after `discard`; the journal
 *   rows stay for whatever could not be removed.
 * - `settle`: synchronous, inside the post transaction: unjournals the post's keys.
 * - `discard`: after the post transaction failed: deletes the objects, then unjournals what is gone.
 * - `markForRemoval`: synchronous, inside the delete transaction: journals the post's keys.
 * - `remove`: after that commit: deletes the objects; a failure leaves the rows, which
 *   `sweep` retries (deletes that fail are retried, issue 26).
 * - `replaceThumbnails`: journals the thumbnail keys, puts them, then in one write transaction keeps
 *   them (unjournals) only if the post still exists, else deletes them.
 * - `sweep`: start-up recovery and the background pass: every journal row whose post does not
 *   reference it (and older than a grace period, for rows of writes in flight in another process)
 *   has its object deleted and the row removed; rows of existing posts are settled.
 * - `open`: the object for GET /media (stream with range), or a presigned URL when redirecting.
 */
export interface PostMedia {
  readonly store: MediaStore;
  adopt(
    image: string,
    postId: string,
    files: {
      image: PutSource;
      contentType: string;
      sha256?: string;
      thumbnails?: { name: string; source: PutSource }[];
    },
  ): Promise<void>;
  settle(image: string): void;
  discard(image: string): Promise<void>;
  markForRemoval(image: string, postId: string): void;
  remove(image: string): Promise<void>;
  replaceThumbnails(image: string, postId: string, thumbnails: { name: string; source: PutSource }[]): Promise<boolean>;
  sweep(opts?: { olderThanMs?: number }): Promise<{ removed: number; kept: number; failed: number }>;
  open(name: string, opts?: { range?: ByteRange }): Promise<ObjectRead | undefined>;
}
