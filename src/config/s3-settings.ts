import { z } from 'zod';
import { flag, inGroup, parsedBy, text, wholeNumber } from './define.ts';

/** The settings of a media store on S3: its location (MEDIA_STORE, `s3://bucket/prefix`) and the `S3_*` settings. */

export const DEFAULT_S3_TIMEOUT_MS = 10_000;

const media = inGroup('media');

/** `s3://bucket/prefix` → bucket and a prefix that is '' or ends in '/'. */
export function parseS3Location(value: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!m) throw new Error('expected s3://bucket or s3://bucket/prefix (bucket: 3-63 of a-z, 0-9, ".", "-")');
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (/(^|\/)\.{1,2}(\/|$)|\/\/|[\\\0]/.test(prefix)) {
    throw new Error('the prefix must not hold empty, "." or ".." segments');
  }
  return { bucket: m[1], prefix: prefix ? `${prefix}/` : '' };
}

/** An S3 store's location; the message is the one MEDIA_STORE has always given. */
function location(v: string): { bucket: string; prefix: string } {
  try {
    return parseS3Location(v);
  } catch (err) {
    throw new Error(`expected "local" or s3://bucket/prefix; ${(err as Error).message}`, { cause: err });
  }
}

export const s3Location = parsedBy('`s3://bucket/prefix`', location);
/** MEDIA_STORE's value: `local` (undefined) or an S3 store's location. */
export const mediaStore = parsedBy('`local` or `s3://bucket/prefix`', (v) => (v === 'local' ? undefined : location(v)));

/** An S3 store's settings besides its location: read only when a store on S3 is used. */
export const S3_SETTINGS = {
  endpoint: media({
    env: 'S3_ENDPOINT',
    shownDefault: 'AWS S3 for the region',
    type: {
      schema: z
        .string()
        .regex(/^https?:\/\/[^/]+\/?$/, 'must be an http(s) URL without a path')
        .transform((u) => u.replace(/\/$/, '')),
      accepts: '`http(s)://host[:port]`',
    },
    doc: "the S3-compatible store's endpoint",
  }),
  region: media({
    env: 'S3_REGION',
    type: text(),
    shownDefault: '`AWS_REGION`, else `us-east-1`',
    doc: "the bucket's region",
  }),
  awsRegion: media({ env: 'AWS_REGION', type: text(), doc: 'the region when `S3_REGION` is unset' }),
  accessKeyId: media({
    env: 'S3_ACCESS_KEY_ID',
    type: text(),
    shownDefault: "the SDK's default chain",
    doc: "the access key; goes with `S3_SECRET_ACCESS_KEY` (neither: the SDK's environment, profile or instance role)",
  }),
  secretAccessKey: media({ env: 'S3_SECRET_ACCESS_KEY', type: text(), doc: 'the secret of `S3_ACCESS_KEY_ID`' }),
  // An endpoint of its own is almost always an S3-compatible store wanting path-style URLs.
  forcePathStyle: media({
    env: 'S3_FORCE_PATH_STYLE',
    type: flag,
    shownDefault: 'on when `S3_ENDPOINT` is set',
    doc: 'path-style URLs (`endpoint/bucket/key`), which most S3-compatible stores need',
  }),
  timeoutMs: media({
    env: 'S3_TIMEOUT_MS',
    type: wholeNumber(100),
    default: String(DEFAULT_S3_TIMEOUT_MS),
    doc:
      'every store operation fails (503) within this deadline, retries included (a put gets one more ' +
      'second per MiB)',
  }),
  maxAttempts: media({
    env: 'S3_MAX_ATTEMPTS',
    type: wholeNumber(1),
    default: '3',
    doc: 'attempts per store operation',
  }),
} as const;

/**
 * Set by imgpost unless already set: the AWS SDK reads it to keep its notice about Node versions off
 * stderr, which CLI tests compare.
 */
export const AWS_SDK_QUIET = media({
  env: 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
  type: text(),
  default: 'true',
  doc: "the AWS SDK's own setting; imgpost sets it unless set, so that the SDK prints no notice about Node versions",
});
