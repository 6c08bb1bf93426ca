import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** Configuration is read once, at start-up, from the environment (docs/decisions.md §1). */
export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  mediaUrl: string;
  dataDir: string;
  elasticsearch: {
    /**
     * undefined: use (start or find) the managed local node. Otherwise one node's URL or several,
     * comma-separated (normalised, without trailing slashes): the client spreads requests over them
     * and fails over when one dies.
     */
    url?: string;
    apiKey?: string;
    username?: string;
    password?: string;
    caCert?: string;
    indexPrefix: string;
    /** number_of_replicas / auto_expand_replicas of the posts index: a count, or a range like `0-1` */
    replicas: string;
  };
  /** undefined: generated once and kept in DATA_DIR */
  sessionSecret?: string;
  webhookAllowPrivate: boolean;
  hashWorkers: number;
  /** the server lets a hash worker beyond the first go after this long without work (src/hashing/pool.ts) */
  hashWorkerIdleMs: number;
  /** uploads waiting for a hash worker before more are refused with 503 */
  hashQueueLimit: number;
  /** requests per minute per user and per client address; 0 disables */
  rateLimit: { writesPerMinute: number; uploadsPerMinute: number };
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** reverse proxies in front (docs/decisions.md §13): 0 means X-Forwarded-For is ignored */
  trustProxy: number;
  /** when set, GET /metrics needs this bearer token; when unset it answers loopback clients only */
  metricsToken?: string;
  /** settled outbox rows and old webhook attempts are removed after this many days */
  retentionDays: number;
  /** tests only (RETENTION_AGE_MS): the retention age in milliseconds, overriding retentionDays */
  retentionAgeMs?: number;
  /** how often the server's retention pass runs (RETENTION_INTERVAL_MS) */
  retentionIntervalMs: number;
  /** tests only (BACKGROUND_THUMBNAILS=0): leave queued thumbnails to first requests and the next start */
  backgroundThumbnails: boolean;
  /** docs/decisions.md §16: the server computes robust descriptors after uploads and backfills old posts (ROBUST_DESCRIPTORS=0: not, tests only); ROBUST_PAUSE_MS: a pause after each one */
  robustDescriptors: { enabled: boolean; pauseMs: number };
  /** docs/decisions.md §14: whether visitors may create accounts (POST /api/account/register) */
  registration: 'closed' | 'open';
  /** the permission a signed-up account gets */
  registrationPermission: number;
  /** the background sweep of pending_files (failed deletes retried, objects of failed uploads removed): MEDIA_SWEEP_INTERVAL_MS, MEDIA_SWEEP_GRACE_MS */
  mediaSweep: { intervalMs: number; graceMs: number };
  /** MEDIA_STORE: undefined for `local` (DATA_DIR/images, the default), else the S3 store's settings */
  s3?: S3Settings;
  /** UPLOAD_MAX_BYTES: an image must be smaller than this (docs/decisions.md §4: 4 MiB); the body cap is 1 MiB more */
  maxImageBytes: number;
  /** DIRECT_UPLOAD_EXPIRES_S: how long a direct upload's presigned PUT (and its key) is good for */
  directUploadExpiresS: number;
  /**
   * The settings of another bucket with the same S3_* settings: the store `imgpost media migrate`
   * recorded as the active one (src/media/store/store-state.ts), which may differ from MEDIA_STORE.
   */
  s3At(location: string, setting?: string): S3Settings;
  /**
   * MEDIA_REDIRECT, MEDIA_REDIRECT_EXPIRES_S: `off` streams GET /media through the server (the
   * default); `presigned` answers it with a 302 to a short-lived presigned GET of the object (S3 only).
   */
  mediaRedirect: { mode: 'off' | 'presigned'; expiresS: number };
}

/** docs/decisions.md §4: an image upload is smaller than 4 MiB. */
export const DEFAULT_MAX_IMAGE_BYTES = 4 * 1024 * 1024;

export class ConfigError extends Error {}

/** An S3 media store's settings (MEDIA_STORE=s3://bucket/prefix, S3_*: docs/decisions.md §17). */
export interface S3Settings {
  bucket: string;
  /** Key prefix inside the bucket: '' or ending in '/'. */
  prefix: string;
  /** Unset: AWS S3 for the region. */
  endpoint?: string;
  region: string;
  /** Unset: the SDK's default chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (`endpoint/bucket/key`), needed by most S3-compatible stores. */
  forcePathStyle: boolean;
  /** Default 10 000. */
  timeoutMs?: number;
  /** Default 3. */
  maxAttempts?: number;
}

export const DEFAULT_S3_TIMEOUT_MS = 10_000;

/** `s3://bucket/prefix` → bucket and a prefix that is '' or ends in '/'. */
export function parseS3Location(value: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!m) throw new Error('expected s3://bucket or s3://bucket/prefix (bucket: 3-63 of a-z, 0-9, ".", "-")');
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (/(^|\/)\.{1,2}(\/|$)|\/\/|[\\\0]/.test(prefix)) throw new Error('the prefix must not hold empty, "." or ".." segments');
  return { bucket: m[1], prefix: prefix ? `${prefix}/` : '' };
}

/**
 * The store's settings from the environment (docs/decisions.md §17), or undefined for MEDIA_STORE=local/unset.
 * Throws ConfigError with one line naming the bad setting, as src/config.ts does.
 */
export function s3StoreConfigFromEnv(env: NodeJS.ProcessEnv = process.env): S3Settings | undefined {
  const store = env.MEDIA_STORE ?? '';
  if (store === '' || store === 'local') return undefined;
  return s3StoreConfigAt(store, env, 'MEDIA_STORE');
}

/**
 * The settings of the bucket at `location` (s3://bucket/prefix) with the S3_* settings of `env`:
 * MEDIA_STORE's store, or the one `imgpost media migrate` moved the images to. `setting` names
 * where the location came from in the error.
 */
export function s3StoreConfigAt(location: string, env: NodeJS.ProcessEnv = process.env, setting = 'MEDIA_STORE'): S3Settings {
  const bad = (name: string, why: string): never => { throw new ConfigError(`invalid configuration: ${name}=${JSON.stringify(name === setting ? location : env[name] ?? '')}: ${why}`); };
  let parsedLocation: { bucket: string; prefix: string } = { bucket: '', prefix: '' };
  try { parsedLocation = parseS3Location(location); } catch (err) { bad(setting, `expected "local" or s3://bucket/prefix; ${(err as Error).message}`); }
  const endpoint = env.S3_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+\/?$/.test(endpoint)) bad('S3_ENDPOINT', 'must be an http(s) URL without a path');
  const flag = (name: string, fallback: boolean) => {
    const v = (env[name] ?? '').toLowerCase();
    if (v === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    return bad(name, 'expected 1 or 0');
  };
  const number = (name: string, fallback: number, min: number) => {
    const v = env[name] ?? '';
    if (v === '') return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min) bad(name, `expected a whole number ≥ ${min}`);
    return Number(v);
  };
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (!!accessKeyId !== !!secretAccessKey) bad(accessKeyId ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID', 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither, for the SDK\'s default credentials)');
  return {
    ...parsedLocation,
    endpoint: endpoint?.replace(/\/$/, ''),
    region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    // An endpoint of its own is almost always an S3-compatible store wanting path-style URLs.
    forcePathStyle: flag('S3_FORCE_PATH_STYLE', endpoint !== undefined),
    timeoutMs: number('S3_TIMEOUT_MS', DEFAULT_S3_TIMEOUT_MS, 100),
    maxAttempts: number('S3_MAX_ATTEMPTS', 3, 1),
  };
}


const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const url = z.string().url().refine((u) => /^https?:/.test(u), 'must be an http(s) URL').transform((u) => u.replace(/\/+$/, ''));

/** One URL, or a comma-separated list of them (the nodes of a cluster). */
const urlList = z
  .string()
  .transform((v) => v.split(',').map((u) => u.trim()))
  .pipe(z.array(url).min(1))
  .transform((urls) => urls.join(','));

const schema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: url.optional(),
  MEDIA_URL: url.optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  ELASTICSEARCH_URL: urlList.optional(),
  ELASTICSEARCH_API_KEY: z.string().min(1).optional(),
  ELASTICSEARCH_USERNAME: z.string().min(1).optional(),
  ELASTICSEARCH_PASSWORD: z.string().min(1).optional(),
  ELASTICSEARCH_CA_CERT: z.string().min(1).optional(),
  ELASTICSEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lower-case letters, digits, - and _').default('imgpost'),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  WEBHOOK_ALLOW_PRIVATE: flag.default('0'),
  HASH_WORKERS: z.coerce.number().int().min(1).max(64).default(Math.max(1, os.availableParallelism())),
  HASH_WORKER_IDLE_MS: z.coerce.number().int().min(0).max(86_400_000).default(10_000),
  HASH_QUEUE_LIMIT: z.coerce.number().int().min(0).max(100_000).default(128),
  RATE_LIMIT_WRITES_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_UPLOADS_PER_MINUTE: z.coerce.number().int().min(0).default(120),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  TRUST_PROXY: z.coerce.number().int().min(0).max(16).default(0),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  RETENTION_AGE_MS: z.coerce.number().int().min(0).optional(),
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(10).max(86_400_000).default(60_000),
  BACKGROUND_THUMBNAILS: flag.default('1'),
  ROBUST_DESCRIPTORS: flag.default('1'),
  ROBUST_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  REGISTRATION: z.enum(['closed', 'open']).default('closed'),
  // Bits as a decimal or 0x-hex number; at most 0xFFFF like every permission.
  REGISTRATION_PERMISSION: z
    .string()
    .regex(/^(0x[0-9a-fA-F]{1,4}|\d{1,5})$/, 'a permission: a decimal or 0x-hex number up to 0xFFFF')
    .transform(Number)
    .refine((n) => n <= 0xffff, 'at most 0xFFFF')
    .default('6'),
  // Checked by s3StoreConfigFromEnv (with S3_*); listed so that a bad value is named here too.
  MEDIA_STORE: z.string().optional(),
  MEDIA_SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(86_400_000).default(60_000),
  MEDIA_SWEEP_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(10 * 60_000),
  // Above the spec's 4 MiB only on purpose (the benchmark's 20 MB files); at most 1 GiB.
  UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 ** 3).default(DEFAULT_MAX_IMAGE_BYTES),
  // At most 7 days: the longest an S3 presigned URL may live.
  DIRECT_UPLOAD_EXPIRES_S: z.coerce.number().int().min(1).max(7 * 86_400).default(900),
  MEDIA_REDIRECT: z.enum(['off', 'presigned']).default('off'),
  // At least 10 s, so that the redirect's own max-age (below the URL's life) is worth caching.
  MEDIA_REDIRECT_EXPIRES_S: z.coerce.number().int().min(10).max(7 * 86_400).default(300),
  ELASTICSEARCH_REPLICAS: z
    .string()
    .regex(/^(\d{1,2}|\d{1,2}-(\d{1,2}|all))$/, 'a number of replicas (1) or a range (0-1, 0-all)')
    .default('0-1'),
});

/** Throws ConfigError with one line naming the first bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "unset", as most deployment tools write them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    throw new ConfigError(`invalid configuration: ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`);
  }
  const e = parsed.data;
  const s3 = s3StoreConfigFromEnv(env);
  // Refused rather than ignored: a deployment that asked for redirects and silently streams would
  // be measured, sized and fronted (CSP, CORS) for the wrong thing.
  if (e.MEDIA_REDIRECT === 'presigned' && !s3) {
    throw new ConfigError('invalid configuration: MEDIA_REDIRECT="presigned": needs an S3 media store (MEDIA_STORE=s3://bucket/prefix); the local store always streams GET /media (unset MEDIA_REDIRECT or set it to off)');
  }
  const hostForUrl = e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  const publicUrl = e.PUBLIC_URL ?? `http://${hostForUrl}:${e.PORT}`;
  return {
    host: e.HOST,
    port: e.PORT,
    publicUrl,
    mediaUrl: e.MEDIA_URL ?? `${publicUrl}/media`,
    dataDir: path.resolve(e.DATA_DIR),
    elasticsearch: {
      url: e.ELASTICSEARCH_URL,
      apiKey: e.ELASTICSEARCH_API_KEY,
      username: e.ELASTICSEARCH_USERNAME,
      password: e.ELASTICSEARCH_PASSWORD,
      caCert: e.ELASTICSEARCH_CA_CERT,
      indexPrefix: e.ELASTICSEARCH_INDEX_PREFIX,
      replicas: e.ELASTICSEARCH_REPLICAS,
    },
    sessionSecret: e.SESSION_SECRET,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    hashWorkers: e.HASH_WORKERS,
    hashWorkerIdleMs: e.HASH_WORKER_IDLE_MS,
    hashQueueLimit: e.HASH_QUEUE_LIMIT,
    rateLimit: { writesPerMinute: e.RATE_LIMIT_WRITES_PER_MINUTE, uploadsPerMinute: e.RATE_LIMIT_UPLOADS_PER_MINUTE },
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    metricsToken: e.METRICS_TOKEN,
    retentionDays: e.RETENTION_DAYS,
    retentionAgeMs: e.RETENTION_AGE_MS,
    retentionIntervalMs: e.RETENTION_INTERVAL_MS,
    backgroundThumbnails: e.BACKGROUND_THUMBNAILS,
    robustDescriptors: { enabled: e.ROBUST_DESCRIPTORS, pauseMs: e.ROBUST_PAUSE_MS },
    registration: e.REGISTRATION,
    registrationPermission: e.REGISTRATION_PERMISSION,
    mediaSweep: { intervalMs: e.MEDIA_SWEEP_INTERVAL_MS, graceMs: e.MEDIA_SWEEP_GRACE_MS },
    s3,
    maxImageBytes: e.UPLOAD_MAX_BYTES,
    directUploadExpiresS: e.DIRECT_UPLOAD_EXPIRES_S,
    s3At: (location, setting = 'the recorded media store') => s3StoreConfigAt(location, env, setting),
    mediaRedirect: { mode: e.MEDIA_REDIRECT, expiresS: e.MEDIA_REDIRECT_EXPIRES_S },
  };
}
