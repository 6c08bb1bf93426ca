import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  anyText,
  flag,
  inGroup,
  oneOf,
  parsedBy,
  pattern,
  settingsOf,
  text,
  url,
  urlList,
  wholeNumber,
  type Setting,
  type ValueType,
} from './define.ts';

/**
 * Every environment variable imgpost reads, each declared once: its name, how it is read and
 * checked, its default, one line of documentation, and (by its place in these trees) where it lands
 * in the configuration. src/config.ts parses them; scripts/config-docs.ts writes the reference
 * (docs/configuration.md) from them.
 */

/** An image upload is smaller than 4 MiB (docs/configuration.md, UPLOAD_MAX_BYTES). */
export const DEFAULT_MAX_IMAGE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_S3_TIMEOUT_MS = 10_000;

/** Defaults of the development services that depend on how they run (set by src/dev-services). */
export const DEV_SERVICE_DEFAULTS = { esHeap: '512m', esClusterNodeHeap: '384m', s3Port: 9390 } as const;

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
const mediaStore = parsedBy('`local` or `s3://bucket/prefix`', (v) => (v === 'local' ? undefined : location(v)));

const portNumber = (max: number, message: string): ValueType<number> => ({
  schema: z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, message),
  accepts: `a port number, 1 to ${max}`,
});
const jvmSize = (example: string) =>
  pattern(/^\d+[kmgKMG]?$/, `expected a JVM size such as ${example}`, 'a JVM size (`256m`, `1g`)');
const directory: ValueType<string> = {
  schema: text().schema.transform((d) => path.resolve(d)),
  accepts: 'a directory',
};

const server = inGroup('server');
const elasticsearch = inGroup('elasticsearch');
const media = inGroup('media');
const uploads = inGroup('uploads');
const retention = inGroup('retention');
const accounts = inGroup('accounts');
const devServices = inGroup('devServices');
const tests = inGroup('tests');

/** The server's and the jobs' configuration, in the shape src/config.ts's `Config` has. */
export const SETTINGS = {
  host: server({ env: 'HOST', type: text(), default: '127.0.0.1', doc: 'where the HTTP server listens' }),
  port: server({ env: 'PORT', type: wholeNumber(0, 65535), default: '3000', doc: 'the HTTP port' }),
  publicUrl: server({
    env: 'PUBLIC_URL',
    type: url,
    shownDefault: '`http://localhost:PORT`',
    doc:
      'prefix of every URL the service returns; the default names `localhost` (still listening on `HOST`), ' +
      'a domain, so passkeys work out of the box (browsers refuse an IP address as relying party)',
  }),
  mediaUrl: server({
    env: 'MEDIA_URL',
    type: url,
    shownDefault: '`PUBLIC_URL/media`',
    doc: 'prefix of `imageURL` (a CDN may serve the files)',
  }),
  dataDir: server({
    env: 'DATA_DIR',
    type: directory,
    default: './data',
    doc: "the SQLite file (`imgpost.sqlite`), the local store's images, the session secret",
  }),
  elasticsearch: {
    url: elasticsearch({
      env: 'ELASTICSEARCH_URL',
      type: urlList,
      shownDefault: 'the managed local node',
      doc:
        "a remote node, or a cluster's nodes comma-separated (`http://es1:9200,http://es2:9200`): " +
        'the client spreads requests over them and fails over when one dies',
    }),
    apiKey: elasticsearch({ env: 'ELASTICSEARCH_API_KEY', type: text(), doc: 'an API key for a secured cluster' }),
    username: elasticsearch({ env: 'ELASTICSEARCH_USERNAME', type: text(), doc: "basic authentication's user" }),
    password: elasticsearch({ env: 'ELASTICSEARCH_PASSWORD', type: text(), doc: "basic authentication's password" }),
    caCert: elasticsearch({
      env: 'ELASTICSEARCH_CA_CERT',
      type: text(),
      doc: 'the CA certificate (PEM file) of a secured cluster',
    }),
    indexPrefix: elasticsearch({
      env: 'ELASTICSEARCH_INDEX_PREFIX',
      default: 'imgpost',
      doc: 'lets instances and test runs share a cluster',
      type: pattern(
        /^[a-z0-9][a-z0-9_-]{0,63}$/,
        'lower-case letters, digits, - and _',
        'lower-case letters, digits, `-`, `_`',
      ),
    }),
    replicas: elasticsearch({
      env: 'ELASTICSEARCH_REPLICAS',
      default: '0-1',
      doc: 'replicas of the posts index: a count, or a range that expands with the nodes there are',
      type: pattern(
        /^(\d{1,2}|\d{1,2}-(\d{1,2}|all))$/,
        'a number of replicas (1) or a range (0-1, 0-all)',
        'a count (`1`) or a range (`0-1`, `0-all`)',
      ),
    }),
  },
  sessionSecret: accounts({
    env: 'SESSION_SECRET',
    type: text(32, 'must be at least 32 characters'),
    shownDefault: 'generated once into `DATA_DIR/session-secret`',
    doc: "the session cookies' key material",
  }),
  webhookAllowPrivate: tests({
    env: 'WEBHOOK_ALLOW_PRIVATE',
    type: flag,
    default: '0',
    doc: 'lets webhooks target loopback and private addresses',
  }),
  hashWorkers: uploads({
    env: 'HASH_WORKERS',
    type: wholeNumber(1, 64),
    default: () => String(Math.max(1, os.availableParallelism())),
    shownDefault: 'the number of cores',
    doc: "the worker pool's size (hashing, and thumbnails at a lower priority)",
  }),
  hashWorkerIdleMs: uploads({
    env: 'HASH_WORKER_IDLE_MS',
    type: wholeNumber(0, 86_400_000),
    default: '10000',
    doc:
      'the server keeps one hash worker and starts the others when images overlap; each leaves after this long ' +
      'without work (CLI jobs keep all of theirs)',
  }),
  hashQueueLimit: uploads({
    env: 'HASH_QUEUE_LIMIT',
    type: wholeNumber(0, 100_000),
    default: '128',
    doc: 'uploads waiting for a hash worker before more are refused with 503',
  }),
  rateLimit: {
    writesPerMinute: server({
      env: 'RATE_LIMIT_WRITES_PER_MINUTE',
      type: wholeNumber(0),
      default: '600',
      doc: 'writes per minute per user and per client address; `0` turns the limit off',
    }),
    uploadsPerMinute: server({
      env: 'RATE_LIMIT_UPLOADS_PER_MINUTE',
      type: wholeNumber(0),
      default: '120',
      doc: 'uploads per minute per user and per client address; `0` turns the limit off',
    }),
  },
  logLevel: server({
    env: 'LOG_LEVEL',
    type: oneOf(['debug', 'info', 'warn', 'error', 'silent']),
    default: 'info',
    doc: "the server's log level",
  }),
  trustProxy: server({
    env: 'TRUST_PROXY',
    type: wholeNumber(0, 16),
    default: '0',
    doc:
      'reverse proxies in front: the client address (rate limits, login throttle, request log) is taken from ' +
      '`X-Forwarded-For`, counting that many hops from the right; at `0` the header is ignored',
  }),
  metricsToken: server({
    env: 'METRICS_TOKEN',
    type: text(16, 'must be at least 16 characters'),
    shownDefault: 'unset',
    doc:
      'when set, `GET /metrics` needs `Authorization: Bearer <token>` (401 otherwise); ' +
      'when unset it answers loopback clients only (others 404)',
  }),
  retentionDays: retention({
    env: 'RETENTION_DAYS',
    type: wholeNumber(1, 3650),
    default: '7',
    doc:
      'indexed outbox rows whose deliveries are all settled, settled deliveries, and webhook attempts beyond ' +
      'the latest 50 per webhook are removed after this many days',
  }),
  retentionAgeMs: tests({
    env: 'RETENTION_AGE_MS',
    type: wholeNumber(0),
    doc: 'the retention age in milliseconds, overriding `RETENTION_DAYS`',
  }),
  retentionIntervalMs: retention({
    env: 'RETENTION_INTERVAL_MS',
    type: wholeNumber(10, 86_400_000),
    default: '60000',
    doc: "how often the server's retention pass runs",
  }),
  backgroundThumbnails: tests({
    env: 'BACKGROUND_THUMBNAILS',
    type: flag,
    default: '1',
    doc: 'with `0`, queued thumbnails are left to first requests and the next start',
  }),
  robustDescriptors: {
    enabled: uploads({
      env: 'ROBUST_DESCRIPTORS',
      type: flag,
      default: '1',
      doc:
        '`0`: compute no robust descriptors, after uploads or for older posts; `robust` answers stay empty ' +
        'for posts without one',
    }),
    pauseMs: uploads({
      env: 'ROBUST_PAUSE_MS',
      type: wholeNumber(0, 60_000),
      default: '0',
      doc: "a pause after each robust descriptor the server computes, to leave a busy server's CPU to requests",
    }),
  },
  registration: accounts({
    env: 'REGISTRATION',
    type: oneOf(['closed', 'open']),
    default: 'closed',
    doc: '`open` lets visitors create accounts (`POST /api/account/register`); `closed` answers 403',
  }),
  registrationPermission: accounts({
    env: 'REGISTRATION_PERMISSION',
    default: '0x4006',
    doc: 'the permission a signed-up account gets',
    // Bits as a decimal or 0x-hex number; at most 0xFFFF like every permission.
    type: {
      schema: z
        .string()
        .regex(/^(0x[0-9a-fA-F]{1,4}|\d{1,5})$/, 'a permission: a decimal or 0x-hex number up to 0xFFFF')
        .transform(Number)
        .refine((n) => n <= 0xffff, 'at most 0xFFFF'),
      accepts: 'a decimal or `0x` hex number up to `0xFFFF`',
    },
  }),
  mediaStore: media({
    env: 'MEDIA_STORE',
    type: mediaStore,
    default: 'local',
    doc:
      'where images and thumbnails live: `local` (`DATA_DIR/images`) or a bucket (and key prefix) of any ' +
      'S3-compatible store',
  }),
  mediaSweep: {
    intervalMs: media({
      env: 'MEDIA_SWEEP_INTERVAL_MS',
      type: wholeNumber(10, 86_400_000),
      default: '60000',
      doc: 'how often the background pass retries failed deletes and removes objects of uploads that never committed',
    }),
    graceMs: media({
      env: 'MEDIA_SWEEP_GRACE_MS',
      type: wholeNumber(0, 86_400_000),
      default: '600000',
      doc: "how old an uncommitted upload's object must be before that pass removes it",
    }),
  },
  // Above 4 MiB only on purpose (the benchmark's 20 MB files); at most 1 GiB.
  maxImageBytes: uploads({
    env: 'UPLOAD_MAX_BYTES',
    type: wholeNumber(1024, 1024 ** 3),
    default: String(DEFAULT_MAX_IMAGE_BYTES),
    doc:
      "an image must be smaller than this (4 MiB by default; more only on purpose, as the benchmark's 20 MB " +
      'files); the request body cap is 1 MiB more',
  }),
  // At most 7 days: the longest an S3 presigned URL may live.
  directUploadExpiresS: uploads({
    env: 'DIRECT_UPLOAD_EXPIRES_S',
    type: wholeNumber(1, 7 * 86_400),
    default: '900',
    doc: "how long a direct upload's presigned PUT and its key are good for, in seconds",
  }),
  mediaRedirect: {
    mode: media({
      env: 'MEDIA_REDIRECT',
      type: oneOf(['off', 'presigned']),
      default: 'off',
      doc:
        '`off` streams `GET /media` through the server; `presigned` answers it with a 302 to a short-lived ' +
        'presigned GET of the object (S3 store only, refused at start-up on the local one)',
    }),
    // At least 10 s, so that the redirect's own max-age (below the URL's life) is worth caching.
    expiresS: media({
      env: 'MEDIA_REDIRECT_EXPIRES_S',
      type: wholeNumber(10, 7 * 86_400),
      default: '300',
      doc: 'how long a presigned GET of `MEDIA_REDIRECT=presigned` is good for, in seconds',
    }),
  },
} as const;

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

/** Any non-empty value: the command line prints a failure's stack trace after its one-line message. */
export const CLI_DEBUG = server({
  env: 'IMGPOST_DEBUG',
  type: anyText,
  default: '',
  shownDefault: 'unset',
  doc: '`imgpost` prints the stack trace of a failure after its one-line message',
});

/** The managed local services (src/dev-services) and the tools they run with. */
export const DEV_SERVICE_SETTINGS = {
  elasticsearch: {
    home: devServices({
      env: 'IMGPOST_ES_HOME',
      type: directory,
      shownDefault: '`~/.cache/imgpost/elasticsearch` (as root with a private `~`: `/var/cache/imgpost/elasticsearch`)',
      doc: "the managed node's cache: its distribution, data and logs",
    }),
    // The transport port is HTTP + 100, so the upper bound keeps both valid.
    port: devServices({
      env: 'IMGPOST_ES_PORT',
      type: portNumber(65435, 'must be a port number below 65436'),
      default: '9277',
      doc: "the managed node's HTTP port (its transport port is this + 100)",
    }),
    heap: devServices({
      env: 'IMGPOST_ES_HEAP',
      type: jvmSize('512m or 1g'),
      shownDefault:
        `\`${DEV_SERVICE_DEFAULTS.esHeap}\`; ` +
        `\`${DEV_SERVICE_DEFAULTS.esClusterNodeHeap}\` for each node of a local cluster`,
      doc: "the managed node's JVM heap",
    }),
    javaHome: devServices({
      env: 'ES_JAVA_HOME',
      type: text(),
      shownDefault: '`JAVA_HOME`, else as for `JAVA_HOME`',
      doc: 'the JDK the managed node runs on',
    }),
  },
  s3proxy: {
    home: devServices({
      env: 'IMGPOST_S3_HOME',
      type: directory,
      shownDefault: '`~/.cache/imgpost/s3proxy`',
      doc: "the local S3 server's cache: its jar, data, logs and credentials",
    }),
    port: devServices({
      env: 'IMGPOST_S3_PORT',
      type: portNumber(65535, 'must be a port number'),
      shownDefault: `the port its directory last ran on, else \`${DEV_SERVICE_DEFAULTS.s3Port}\``,
      doc: "the local S3 server's port on 127.0.0.1",
    }),
    heap: devServices({
      env: 'IMGPOST_S3_HEAP',
      type: jvmSize('256m'),
      default: '256m',
      doc: "the local S3 server's JVM heap",
    }),
    logLevel: devServices({
      env: 'IMGPOST_S3_LOG_LEVEL',
      type: text(),
      default: 'info',
      doc: "the local S3 server's log level (S3Proxy's `LOG_LEVEL`)",
    }),
  },
  tools: {
    javaHome: devServices({
      env: 'JAVA_HOME',
      type: text(),
      shownDefault: 'the `java` on `PATH`, then `/usr/lib/jvm`',
      doc: 'the JDK the managed services run on and Maven fetches them with',
    }),
    mavenHome: devServices({ env: 'MAVEN_HOME', type: text(), doc: 'where Maven is when `mvn` is not on `PATH`' }),
    m2Home: devServices({ env: 'M2_HOME', type: text(), doc: 'as `MAVEN_HOME` (its older name)' }),
    path: devServices({
      env: 'PATH',
      type: { schema: z.string(), accepts: 'directories, `:`-separated' },
      default: '',
      shownDefault: "the system's",
      doc: 'where `java`, `mvn` and `unzip` are looked for',
    }),
  },
} as const;

/** Every declared setting, for the reference: the configuration's, the S3 store's, the others, the dev services'. */
export const ALL_SETTINGS: readonly Setting<unknown>[] = [
  ...settingsOf(SETTINGS),
  ...settingsOf(S3_SETTINGS),
  AWS_SDK_QUIET,
  CLI_DEBUG,
  ...settingsOf(DEV_SERVICE_SETTINGS),
];
