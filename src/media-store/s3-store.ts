import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_S3_TIMEOUT_MS as DEFAULT_TIMEOUT_MS } from '../config.ts';
import {
  ChecksumMismatchError,
  RangeNotSatisfiableError,
  StoreUnavailableError,
  type ByteRange,
  type ListedObject,
  type MediaStore,
  type ObjectRead,
  type PresignedRequest,
  type PutOptions,
  type PutSource,
  type StoredObject,
} from './media-store.ts';
import {
  digest,
  failureOf,
  rangeHeader,
  type S3StoreConfig,
  s3ClientFor,
  s3PublicOrigin,
  sleep,
  statusOf,
} from './s3-client.ts';
import { s3Presigner, s3Sdk } from './s3-sdk.ts';

/**
 * The S3 media store (docs/decisions.md §17, issue 26), through @aws-sdk/client-s3, for AWS S3 and any
 * S3-compatible store (S3Proxy in the tests, MinIO, Ceph, R2, ...).
 *
 * Time-outs: every operation has a deadline (`timeoutMs`, plus one second per MiB for a put), its
 * retries included; a read has it until the store starts answering, then its body fails when the
 * connection stays idle for `timeoutMs`. A dead, hung or failing store thus gives a
 * StoreUnavailableError (503) within the deadline, never a hang. Retries (up to `maxAttempts`,
 * backoff from 100 ms) are ours rather than the SDK's, so that a file is re-read for each attempt
 * and no attempt outlives the deadline; every operation here is idempotent.
 *
 * Integrity: a put sends Content-MD5, which every S3-compatible store checks (a corrupted transfer is
 * refused, never stored), and records the sha256 as user metadata `x-amz-meta-sha256`, which
 * `head` returns (for `media migrate`'s checks and backups). Checksums of the SDK's newer kind
 * (CRC32 trailers, `x-amz-checksum-*`) are off: not every S3-compatible store takes them, and in a
 * presigned PUT they would sign the checksum of an empty body.
 *
 * Its client and the helpers it runs on (failure classification, digest, ...) are in s3-client.ts.
 */

const DEFAULT_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const MIB = 1024 * 1024;

export class S3MediaStore implements MediaStore {
  readonly kind = 's3' as const;
  readonly location: string;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;

  readonly publicOrigin: string;

  constructor(config: S3StoreConfig, client?: S3Client) {
    this.publicOrigin = s3PublicOrigin(config);
    this.bucket = config.bucket;
    this.prefix = config.prefix;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = config.maxAttempts ?? 3;
    this.location = `s3://${config.bucket}/${config.prefix}`;
    this.client = client ?? s3ClientFor(config);
  }

  locator(key: string): string {
    return `${this.location}${key}`;
  }

  private objectKey(key: string): string {
    if (key === '' || key.startsWith('/') || /(^|\/)\.{1,2}(\/|$)/.test(key))
      throw new Error(`invalid media key ${JSON.stringify(key)}`);
    return `${this.prefix}${key}`;
  }

  /**
   * Runs `attempt` with retries until it succeeds, fails with an answer about the object (rethrown
   * as is), or the deadline passes (StoreUnavailableError). The signal aborts the attempt in flight
   * at the deadline; `keepSignal` leaves it to the caller to clear the timer (reads, whose body
   * outlives the call).
   */
  private async run<T>(
    operation: string,
    attempt: (signal: AbortSignal) => Promise<T>,
    opts: { extraMs?: number } = {},
  ): Promise<T> {
    const controller = new AbortController();
    const budget = this.timeoutMs + (opts.extraMs ?? 0);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, budget);
    const deadline = Date.now() + budget;
    try {
      for (let n = 1; ; n++) {
        try {
          return await attempt(controller.signal);
        } catch (err) {
          const failure = failureOf(err, timedOut);
          if (failure === undefined) throw err;
          // Credentials and a missing bucket do not fix themselves between attempts.
          const retryable = failure === 'unreachable' || failure === 'server_error';
          const pause = 100 * 2 ** (n - 1);
          if (!retryable || timedOut || n >= this.maxAttempts || Date.now() + pause >= deadline) {
            throw new StoreUnavailableError(this.location, `${operation}`, failure, err);
          }
          await sleep(pause);
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async put(key: string, source: PutSource, opts: PutOptions): Promise<StoredObject> {
    const objectKey = this.objectKey(key);
    const sum = await digest(source);
    if (opts.sha256 !== undefined && opts.sha256.toLowerCase() !== sum.sha256)
      throw new ChecksumMismatchError(key, opts.sha256, sum.sha256);
    const out = await this.run(
      `put ${key}`,
      (abortSignal) =>
        this.client.send(
          new (s3Sdk().PutObjectCommand)({
            Bucket: this.bucket,
            Key: objectKey,
            // A file is opened anew for each attempt (a stream cannot be replayed).
            Body: 'buffer' in source ? source.buffer : fs.createReadStream(source.path),
            ContentLength: sum.size,
            ContentMD5: sum.md5,
            ContentType: opts.contentType,
            CacheControl: opts.cacheControl ?? DEFAULT_CACHE_CONTROL,
            Metadata: { sha256: sum.sha256 },
          }),
          { abortSignal },
        ),
      { extraMs: Math.ceil((sum.size / MIB) * 1000) },
    );
    return { key, size: sum.size, etag: out.ETag ?? '', sha256: sum.sha256, contentType: opts.contentType };
  }

  async get(key: string, opts: { range?: ByteRange } = {}): Promise<ObjectRead | undefined> {
    const objectKey = this.objectKey(key);
    try {
      const out = await this.run(`get ${key}`, (abortSignal) =>
        this.client.send(
          new (s3Sdk().GetObjectCommand)({
            Bucket: this.bucket,
            Key: objectKey,
            Range: opts.range && rangeHeader(opts.range),
          }),
          { abortSignal },
        ),
      );
      const body = out.Body as Readable;
      const length = out.ContentLength ?? 0;
      // `bytes start-end/size` when the store honoured the range (a 206).
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(out.ContentRange ?? '');
      const range = m ? { start: Number(m[1]), end: Number(m[2]) } : undefined;
      return {
        key,
        body,
        length,
        range,
        size: m ? Number(m[3]) : length,
        etag: out.ETag ?? '',
        sha256: out.Metadata?.sha256,
        contentType: out.ContentType,
        lastModified: out.LastModified,
      };
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      const status = statusOf(err);
      if (status === 404) return undefined;
      if (status === 416) {
        const head = await this.head(key);
        if (!head) return undefined;
        throw new RangeNotSatisfiableError(head.size);
      }
      throw err;
    }
  }

  async head(key: string): Promise<StoredObject | undefined> {
    const objectKey = this.objectKey(key);
    try {
      const out = await this.run(`head ${key}`, (abortSignal) =>
        this.client.send(new (s3Sdk().HeadObjectCommand)({ Bucket: this.bucket, Key: objectKey }), { abortSignal }),
      );
      return {
        key,
        size: out.ContentLength ?? 0,
        etag: out.ETag ?? '',
        sha256: out.Metadata?.sha256,
        contentType: out.ContentType,
        lastModified: out.LastModified,
      };
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) && statusOf(err) === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      await this.run(`delete ${key}`, (abortSignal) =>
        this.client.send(new (s3Sdk().DeleteObjectCommand)({ Bucket: this.bucket, Key: objectKey }), { abortSignal }),
      );
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) && statusOf(err) === 404) return;
      throw err;
    }
  }

  async *list(prefix: string, opts: { startAfter?: string } = {}): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.run(`list ${prefix || '(all)'}`, (abortSignal) =>
        this.client.send(
          new (s3Sdk().ListObjectsV2Command)({
            Bucket: this.bucket,
            Prefix: `${this.prefix}${prefix}`,
            ContinuationToken: token,
            StartAfter:
              token === undefined && opts.startAfter !== undefined ? `${this.prefix}${opts.startAfter}` : undefined,
            MaxKeys: 1000,
          }),
          { abortSignal },
        ),
      );
      for (const o of page.Contents ?? []) {
        if (!o.Key?.startsWith(this.prefix)) continue;
        yield { key: o.Key.slice(this.prefix.length), size: o.Size ?? 0, etag: o.ETag, lastModified: o.LastModified };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async presignGet(
    key: string,
    opts: { expiresIn: number; signingDate?: Date; responseContentType?: string; responseCacheControl?: string },
  ): Promise<PresignedRequest> {
    const command = new (s3Sdk().GetObjectCommand)({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentType: opts.responseContentType,
      ResponseCacheControl: opts.responseCacheControl,
    });
    const signingDate = opts.signingDate ?? new Date();
    const url = await s3Presigner().getSignedUrl(this.client, command, { expiresIn: opts.expiresIn, signingDate });
    return { method: 'GET', url, headers: {}, expiresAt: new Date(signingDate.getTime() + opts.expiresIn * 1000) };
  }

  async presignPut(
    key: string,
    opts: { expiresIn: number; contentType: string; contentLength?: number },
  ): Promise<PresignedRequest> {
    const command = new (s3Sdk().PutObjectCommand)({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ContentType: opts.contentType,
      ContentLength: opts.contentLength,
    });
    const headers: Record<string, string> = { 'content-type': opts.contentType };
    if (opts.contentLength !== undefined) headers['content-length'] = String(opts.contentLength);
    // Signed headers: the client must send this type (and length), or the store refuses the PUT.
    const url = await s3Presigner().getSignedUrl(this.client, command, {
      expiresIn: opts.expiresIn,
      signableHeaders: new Set(Object.keys(headers)),
    });
    return { method: 'PUT', url, headers, expiresAt: new Date(Date.now() + opts.expiresIn * 1000) };
  }

  async check(): Promise<void> {
    await this.run('check', (abortSignal) =>
      this.client.send(new (s3Sdk().HeadBucketCommand)({ Bucket: this.bucket }), { abortSignal }),
    ).catch((err) => {
      // HeadBucket answers a missing bucket with a bare 404.
      if (!(err instanceof StoreUnavailableError) && statusOf(err) === 404)
        throw new StoreUnavailableError(this.location, 'check', 'misconfigured', err);
      throw err;
    });
  }

  close(): void {
    this.client.destroy();
  }
}
