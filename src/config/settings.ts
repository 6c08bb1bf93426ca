import os from 'node:os';
import { z } from 'zod';
import { anyText, directory, flag, inGroup, oneOf, pattern, text, url, urlList, wholeNumber } from './define.ts';
import { mediaStore } from './s3-settings.ts';
import { TEST_SETTINGS } from './test-settings.ts';
import { VIDEO_SETTINGS } from './video-settings.ts';

/**
 * Every environment variable imgpost reads, each declared once: its name, how it is read and
 * checked, its default, one line of documentation, and (by its place in these trees) where it lands
 * in the configuration. src/config.ts parses them; scripts/config-docs.ts writes the reference
 * (docs/configuration.md) from them. The S3 store's settings are in s3-settings.ts, the development
 * services' in dev-service-settings.ts.
 */

/** An image upload is smaller than 4 MiB (docs/configuration.md, UPLOAD_MAX_BYTES). */
export const DEFAULT_MAX_IMAGE_BYTES = 4 * 1024 * 1024;

const server = inGroup('server');
const elasticsearch = inGroup('elasticsearch');
const media = inGroup('media');
const uploads = inGroup('uploads');
const retention = inGroup('retention');
const accounts = inGroup('accounts');

/** The server's and the jobs' configuration, in the shape src/config.ts's `Config` has. */
export const SETTINGS = {
  ...TEST_SETTINGS,
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
  indexGroupGapMs: elasticsearch({
    env: 'INDEX_GROUP_GAP_MS',
    type: wholeNumber(0, 1000),
    default: '200',
    doc:
      'while the hash pool has urgent work (uploads in their image work), the least time between two refreshes made for writes that answer ' +
      'once searchable: the writes arriving meanwhile share one (an answer waits up to this much longer, a ' +
      'refresh costs the index far more than a document); `0` refreshes for each group at once',
  }),
  searchTotalBound: elasticsearch({
    env: 'SEARCH_TOTAL_BOUND',
    type: wholeNumber(1, 1_000_000_000),
    default: '10000',
    doc:
      'searches without facets count their matches up to this many; above it the total is this number, marked ' +
      'an estimate, and the gallery shows "10,000+" (docs/decisions.md §24)',
  }),
  sessionSecret: accounts({
    env: 'SESSION_SECRET',
    type: text(32, 'must be at least 32 characters'),
    shownDefault: 'generated once into `DATA_DIR/session-secret`',
    doc: "the session cookies' key material",
  }),
  hashWorkers: uploads({
    env: 'HASH_WORKERS',
    type: wholeNumber(1, 64),
    default: () => String(Math.max(1, os.availableParallelism())),
    shownDefault: 'the number of cores',
    doc:
      "the worker pool's size: an upload's hash, thumbnails and robust descriptor (all made before its answer), " +
      "and older posts' work at a lower priority",
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
  webhookDispatcherThreads: server({
    env: 'WEBHOOK_DISPATCHER_THREADS',
    type: wholeNumber(1, 16),
    default: '1',
    doc:
      'threads sending webhook deliveries; several share the webhooks with deliveries due between them (each ' +
      "webhook's events still go out one at a time, in order); more than one only pays with cores to spare",
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
  shutdownGraceMs: server({
    env: 'SHUTDOWN_GRACE_MS',
    type: wholeNumber(0, 600_000),
    default: '10000',
    doc: 'on SIGTERM or SIGINT, how long requests in flight may take before their connections are cut',
  }),
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
  retentionIntervalMs: retention({
    env: 'RETENTION_INTERVAL_MS',
    type: wholeNumber(10, 86_400_000),
    default: '60000',
    doc: "how often the server's retention pass runs",
  }),
  robustDescriptors: {
    enabled: uploads({
      env: 'ROBUST_DESCRIPTORS',
      type: flag,
      default: '1',
      doc:
        '`0`: compute no robust descriptors, with uploads or for older posts; `robust` answers stay empty ' +
        'for posts without one',
    }),
    pauseMs: uploads({
      env: 'ROBUST_PAUSE_MS',
      type: wholeNumber(0, 60_000),
      default: '0',
      doc: "a pause after each older post's robust descriptor the server computes, to leave a busy server's CPU to requests",
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
  video: VIDEO_SETTINGS,
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

/** Any non-empty value: the command line prints a failure's stack trace after its one-line message. */
export const CLI_DEBUG = server({
  env: 'IMGPOST_DEBUG',
  type: anyText,
  default: '',
  shownDefault: 'unset',
  doc: '`imgpost` prints the stack trace of a failure after its one-line message',
});
