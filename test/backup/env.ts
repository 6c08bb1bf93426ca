/** Environments for the backup tests: a DATA_DIR and an index prefix of its own, cleaned up after. */
import fs from 'node:fs';
import type { ExecutionContext } from 'ava';
import { tempDir } from '../helpers/app.ts';
import { childEnv, cli } from '../reliability/child-server.ts';
import { sharedS3Env } from '../helpers/s3.ts';

export async function isolatedEnv(t: ExecutionContext, label: string): Promise<Record<string, string>> {
  const { env, dataDir } = await childEnv(t, label, {
    HASH_WORKERS: '2',
    // IMGPOST_TEST_MEDIA_STORE=s3 (npm run test:s3): a fresh bucket on the suite's S3Proxy, as test apps get.
    ...(process.env.IMGPOST_TEST_MEDIA_STORE === 's3' ? await sharedS3Env() : {}),
  });
  // An empty DATA_DIR for restore: the directory must not exist or be empty.
  fs.rmSync(dataDir, { recursive: true });
  return env;
}

/** A backup destination, removed after the test. */
export function destDir(t: ExecutionContext): string {
  const dir = tempDir('imgpost-backup-dest');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * `imgpost backup` of `sourceEnv` into a fresh destination, then `imgpost restore` (with `restoreFlags`)
 * into an environment of its own named `label`; the test fails unless both exit 0. Returns that environment.
 */
export async function backUpAndRestore(
  t: ExecutionContext,
  sourceEnv: Record<string, string>,
  label: string,
  restoreFlags: string[] = [],
): Promise<Record<string, string>> {
  const dest = destDir(t);
  const made = await cli(['backup', dest, '--json'], sourceEnv);
  t.is(made.code, 0, made.stderr);
  const target = await isolatedEnv(t, label);
  const restored = await cli(['restore', dest, ...restoreFlags, '--json'], target);
  t.is(restored.code, 0, restored.stderr);
  return target;
}
