import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_S3_TIMEOUT_MS as DEFAULT_TIMEOUT_MS, quietAwsSdk, type S3Settings } from '../config.ts';
import type { ByteRange, PutSource, StoreFailure } from './media-store.ts';
import { s3Sdk } from './s3-sdk.ts';

/**
 * The S3 media store's tools (s3-store.ts): its client, made with our retries and deadlines, bucket
 * creation, how a failure is classified, a put's digest, a read's Range header and the origin of the
 * store's object URLs.
 */

// The SDK warns (once per process, when a client is made) under Node 20 that its releases from 2027
// on need Node 22: stderr that CLI tests compare. The versions pinned in package.json run on Node 20.
quietAwsSdk();

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

export const statusOf = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why an error is a store failure, or undefined when it is an answer about the object (404, 416, ...). */
export function failureOf(err: unknown, timedOut: boolean): StoreFailure | undefined {
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
export async function digest(source: PutSource): Promise<{ sha256: string; md5: string; size: number }> {
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

export function rangeHeader(range: ByteRange): string {
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
