import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3Presigner, s3Sdk } from './s3-sdk.ts';
import { DEFAULT_S3_TIMEOUT_MS as DEFAULT_TIMEOUT_MS, quietAwsSdk, type S3Settings } from '../../config.ts';

// Parsed with the rest of the configuration (MEDIA_STORE, S3_*); re-exported for the S3 tools.
export { parseS3Location, s3StoreConfigFromEnv, DEFAULT_S3_TIMEOUT_MS as DEFAULT_TIMEOUT_MS } from '../../config.ts';
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
  type StoreFailure,
  type StoredObject,
} from './media-store.ts';

// The SDK warns (once per process, when a client is made) under Node 20 that its releases from 2027
// on need Node 22: stderr that CLI tests compare. The versions pinned in package.json run on Node 20.
quietAwsSdk();

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
 */

export interface S3StoreConfig extends S3Settings {
  /** Where the SDK's own warnings go (socket pool at capacity, ...); default: nowhere (never the console). */
  logger?: SdkLogger;
}

/** The SDK's logger shape; with none given it writes some warnings to the console, i.e. stderr. */
export interface SdkLogger {
  trace(...a: unknown[]): void;
  debug(...a: unknown[]): void;
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
  error(...a: unknown[]): void;
}
const silent: SdkLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const DEFAULT_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const MIB = 1024 * 1024;

/**
 * An S3 client with this module's settings: our own retries and deadlines, keep-alive connections, no flexible
 * checksums.
 */
export function s3ClientFor(
  c: Pick<
    S3StoreConfig,
    'endpoint' | 'region' | 'forcePathStyle' | 'accessKeyId' | 'secretAccessKey' | 'timeoutMs' | 'logger'
  >,
): S3Client {
  const timeoutMs = c.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const agent = { keepAlive: true, maxSockets: 64 };
  return new (s3Sdk().S3Client)({
    endpoint: c.endpoint,
    region: c.region,
    forcePathStyle: c.forcePathStyle,
    credentials:
      c.accessKeyId && c.secretAccessKey
        ? { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey }
        : undefined,
    maxAttempts: 1,
    logger: c.logger ?? silent,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      // A store that does not accept the connection; then, the connection idle for this long (a
      // read's body included, after our deadline has let go). No `requestTimeout`: in this SDK it
      // only logs a warning unless told to throw, and our deadline (below) covers it.
      connectionTimeout: Math.min(timeoutMs, 5000),
      socketTimeout: timeoutMs,
      httpAgent: new http.Agent(agent),
      httpsAgent: new https.Agent(agent),
    },
  });
}

/** Creates the bucket unless it exists; true when it was created. */
export async function createBucketIfMissing(client: S3Client, bucket: string): Promise<boolean> {
  try {
    await client.send(new (s3Sdk().HeadBucketCommand)({ Bucket: bucket }), {
      abortSignal: AbortSignal.timeout(DEFAULT_TIMEOUT_MS),
    });
    return false;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  try {
    await client.send(new (s3Sdk().CreateBucketCommand)({ Bucket: bucket }), {
      abortSignal: AbortSignal.timeout(DEFAULT_TIMEOUT_MS),
    });
    return true;
  } catch (err) {
    if (['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes((err as Error).name)) return false;
    throw err;
  }
}

const statusOf = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why an error is a store failure, or undefined when it is an answer about the object (404, 416, ...). */
function failureOf(err: unknown, timedOut: boolean): StoreFailure | undefined {
  if (timedOut) return 'timeout';
  const e = err as { name?: string; code?: string; message?: string };
  // The SDK names a reset connection a TimeoutError too: it is not one (and is worth a retry).
  if (e?.code === 'ECONNRESET' || e?.code === 'EPIPE' || e?.code === 'ECONNREFUSED') return 'unreachable';
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT') return 'timeout';
  const status = statusOf(err);
  if (e?.name === 'NoSuchBucket') return 'misconfigured';
  if (status === 403 || e?.name === 'InvalidAccessKeyId' || e?.name === 'SignatureDoesNotMatch') return 'denied';
  if (status !== undefined && (status >= 500 || status === 429)) return 'server_error';
  if (status === undefined) {
    // No HTTP answer: refused, reset, unresolvable, or a reply that is not S3's.
    if (
      /ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|socket hang up/i.test(
        `${e?.code} ${e?.message}`,
      )
    )
      return 'unreachable';
    if (e?.name === 'Error' || e?.code) return 'unreachable';
    return 'server_error';
  }
  return undefined;
}

/** The sha256 (hex), MD5 (base64) and size of a source, read once. */
async function digest(source: PutSource): Promise<{ sha256: string; md5: string; size: number }> {
  const sha = createHash('sha256');
  const md5 = createHash('md5');
  let size = 0;
  if ('buffer' in source) {
    sha.update(source.buffer);
    md5.update(source.buffer);
    size = source.buffer.length;
  } else {
    await pipeline(fs.createReadStream(source.path), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        sha.update(chunk);
        md5.update(chunk);
        size += chunk.length;
      }
    });
  }
  return { sha256: sha.digest('hex'), md5: md5.digest('base64'), size };
}

function rangeHeader(range: ByteRange): string {
  return 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ''}`;
}

/**
 * The origin of the store's object URLs, as the SDK builds them: the endpoint (path style) or the
 * bucket's virtual host under it; AWS's regional endpoint without S3_ENDPOINT.
 */
export function s3PublicOrigin(c: Pick<S3StoreConfig, 'endpoint' | 'region' | 'bucket' | 'forcePathStyle'>): string {
  const base = new URL(c.endpoint ?? `https://s3.${c.region}.amazonaws.com`);
  // The SDK keeps path style for bucket names that cannot be a host name label under TLS (dots).
  return c.forcePathStyle || (base.protocol === 'https:' && c.bucket.includes('.'))
    ? base.origin
    : `${base.protocol}//${c.bucket}.${base.host}`;
}

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
