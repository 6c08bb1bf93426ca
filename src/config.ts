import { ConfigError, invalid, parseTree, parseWith, type Values } from './config/define.ts';
import { DEV_SERVICE_SETTINGS } from './config/dev-service-settings.ts';
import { AWS_SDK_QUIET, S3_SETTINGS, s3Location } from './config/s3-settings.ts';
import { CLI_DEBUG, SETTINGS } from './config/settings.ts';

/**
 * Configuration is read once, at start-up, from the environment. Every variable is declared once,
 * in src/config/settings.ts, s3-settings.ts or dev-service-settings.ts (name, type, default, documentation); this
 * module is the only code that reads the environment, and the reference docs/configuration.md is generated from the
 * declarations (`npm run docs:config`).
 */

export { ConfigError };
export { DEFAULT_MAX_IMAGE_BYTES } from './config/settings.ts';
export { DEFAULT_S3_TIMEOUT_MS, parseS3Location } from './config/s3-settings.ts';
export { DEV_SERVICE_DEFAULTS } from './config/dev-service-settings.ts';

/** The server's and the jobs' configuration (the values of SETTINGS, with what is derived from them). */
export type Config = ReturnType<typeof assemble>;

type S3Values = ReturnType<typeof s3Values>;
/**
 * An S3 media store's settings (MEDIA_STORE=s3://bucket/prefix and S3_*). A timeout or attempt count
 * left out (settings made by hand, in tests and tools) is the store's default.
 */
type StoreDefaulted = 'timeoutMs' | 'maxAttempts';
export type S3Settings = Omit<S3Values, StoreDefaulted> & Partial<Pick<S3Values, StoreDefaulted>>;

function s3Values(where: { bucket: string; prefix: string }, env: NodeJS.ProcessEnv) {
  const { awsRegion, region, forcePathStyle, ...s } = parseTree(S3_SETTINGS, env);
  if (!!s.accessKeyId !== !!s.secretAccessKey) {
    const missing = s.accessKeyId ? S3_SETTINGS.secretAccessKey.env : S3_SETTINGS.accessKeyId.env;
    throw invalid(
      missing,
      env[missing],
      "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither, for the SDK's default credentials)",
    );
  }
  return {
    ...where,
    ...s,
    region: region ?? awsRegion ?? 'us-east-1',
    forcePathStyle: forcePathStyle ?? s.endpoint !== undefined,
  };
}

/**
 * The settings of the bucket at `location` (s3://bucket/prefix) with the S3_* settings of `env`:
 * MEDIA_STORE's store, or the one `imgpost media migrate` moved the images to. `setting` names
 * where the location came from in the error.
 */
export function s3StoreConfigAt(
  location: string,
  env: NodeJS.ProcessEnv = process.env,
  setting = 'MEDIA_STORE',
): S3Settings {
  return s3Values(parseWith(s3Location, location, setting), env);
}

/** The store's settings from the environment, or undefined for MEDIA_STORE=local/unset. Throws ConfigError. */
export function s3StoreConfigFromEnv(env: NodeJS.ProcessEnv = process.env): S3Settings | undefined {
  const where = SETTINGS.mediaStore.read(env);
  return where && s3Values(where, env);
}

function assemble(values: Values<typeof SETTINGS>, env: NodeJS.ProcessEnv) {
  const { mediaStore, publicUrl, mediaUrl, ...rest } = values;
  const s3: S3Settings | undefined = mediaStore && s3Values(mediaStore, env);
  // Refused rather than ignored: a deployment that asked for redirects and silently streams would
  // be measured, sized and fronted (CSP, CORS) for the wrong thing.
  if (rest.mediaRedirect.mode === 'presigned' && !s3) {
    throw invalid(
      'MEDIA_REDIRECT',
      'presigned',
      'needs an S3 media store (MEDIA_STORE=s3://bucket/prefix); ' +
        'the local store always streams GET /media (unset MEDIA_REDIRECT or set it to off)',
    );
  }
  // docs/decisions.md §18 (passkeys out of the box): localhost, a domain browsers accept as relying party.
  const publicBase = publicUrl ?? `http://localhost:${rest.port}`;
  return {
    ...rest,
    publicUrl: publicBase,
    mediaUrl: mediaUrl ?? `${publicBase}/media`,
    /** MEDIA_STORE: undefined for `local` (DATA_DIR/images), else the S3 store's settings. */
    s3,
    /**
     * The settings of another bucket with the same S3_* settings: the store `imgpost media migrate`
     * recorded as the active one (src/media-store/store-state.ts), which may differ from MEDIA_STORE.
     */
    s3At: (location: string, setting = 'the recorded media store'): S3Settings =>
      s3StoreConfigAt(location, env, setting),
    /** The `PATH` searched for ffmpeg and ffprobe when FFMPEG_PATH/FFPROBE_PATH are unset (src/video/binaries.ts). */
    searchPath: env.PATH,
  };
}

/** Throws ConfigError with one line naming the first bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return assemble(parseTree(SETTINGS, env), env);
}

/** The managed local services' settings (tools/dev-services), read when they are used. */
export type DevServicesConfig = Values<typeof DEV_SERVICE_SETTINGS>;

export function loadDevServicesConfig(env: NodeJS.ProcessEnv = process.env): DevServicesConfig {
  return parseTree(DEV_SERVICE_SETTINGS, env);
}

/**
 * The environment of a child process: this process's, with `changes` applied (undefined removes a
 * variable). The managed services hand their tools the caller's environment this way.
 */
export function childProcessEnv(
  changes: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** IMGPOST_DEBUG: whether the command line prints a failure's stack trace. Never throws. */
export const cliDebug = (env: NodeJS.ProcessEnv = process.env): boolean => CLI_DEBUG.read(env);

/** Sets the AWS SDK's own setting that keeps its notice about Node versions off stderr, unless set. */
export function quietAwsSdk(env: NodeJS.ProcessEnv = process.env): void {
  env[AWS_SDK_QUIET.env] ??= AWS_SDK_QUIET.read(env);
}
