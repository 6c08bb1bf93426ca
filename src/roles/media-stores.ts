import path from 'node:path';
import type { Config } from '../config.ts';
import type { Db } from '../db/sqlite.ts';
import type { Logger } from '../log.ts';
import { LocalMediaStore } from '../media-store/local-store.ts';
import type { MediaStore } from '../media-store/media-store.ts';
import { S3MediaStore } from '../media-store/s3-store.ts';
import { MediaStoreStates } from '../media-store/store-state.ts';
import { MediaStores } from '../media-store/stores.ts';

/** MEDIA_STORE's store name: `local` or `s3://bucket/prefix/` (as src/media-store/store-state.ts spells it). */
export const configuredStoreName = (config: Config): string =>
  config.s3 ? `s3://${config.s3.bucket}/${config.s3.prefix}` : 'local';

/**
 * A media store by name (docs/decisions.md §17): `local` is DATA_DIR/images, `s3://...` a bucket with the
 * S3_* settings. Throws ConfigError for a name that is neither, or bad S3_* settings.
 */
export function openMediaStoreNamed(config: Config, log: Logger, name: string, setting?: string): MediaStore {
  if (name === 'local') return new LocalMediaStore(path.join(config.dataDir, 'images'));
  const settings = config.s3 && name === configuredStoreName(config) ? config.s3 : config.s3At(name, setting);
  // The SDK's own warnings (a socket pool at capacity, ...) go to our log, at debug.
  const sdkLog = (msg: unknown, ...rest: unknown[]) =>
    log.debug('s3 client', { msg: String(msg), more: rest.length ? String(rest) : undefined });
  return new S3MediaStore({ ...settings, logger: { trace() {}, debug() {}, info() {}, warn: sdkLog, error: sdkLog } });
}

/** The media store MEDIA_STORE names: DATA_DIR/images by default, else an S3 bucket. */
export const createMediaStore = (config: Config, log: Logger): MediaStore =>
  openMediaStoreNamed(config, log, configuredStoreName(config));

/** The store in use: the one `imgpost media migrate` recorded in the database, else MEDIA_STORE's. */
export function wireMediaStores(config: Config, log: Logger, db: Db): MediaStores {
  return new MediaStores(new MediaStoreStates(db), configuredStoreName(config), (name) =>
    openMediaStoreNamed(config, log, name),
  );
}
