/** Environments for the backup tests: a DATA_DIR and an index prefix of its own, cleaned up after. */
import fs from 'node:fs';
import type { ExecutionContext } from 'ava';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { tempDir, uniquePrefix } from '../helpers/app.ts';
import { freePort } from '../reliability/child-server.ts';
import { sharedS3Env } from '../helpers/s3.ts';

export const ES_URL = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';

export async function isolatedEnv(t: ExecutionContext, label: string): Promise<Record<string, string>> {
  const dataDir = tempDir(`imgpost-${label}`);
  // An empty DATA_DIR for restore: the directory must not exist or be empty.
  fs.rmSync(dataDir, { recursive: true });
  const prefix = uniquePrefix();
  t.teardown(async () => {
    const es = createEsClient({ url: ES_URL, indexPrefix: prefix });
    await es.indices.delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] }).catch(() => {});
    await es.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    HASH_WORKERS: '2',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    // IMGPOST_TEST_MEDIA_STORE=s3 (npm run test:s3): a fresh bucket on the suite's S3Proxy, as test apps get.
    ...(process.env.IMGPOST_TEST_MEDIA_STORE === 's3' ? await sharedS3Env() : {}),
  };
}

/** A backup destination, removed after the test. */
export function destDir(t: ExecutionContext): string {
  const dir = tempDir('imgpost-backup-dest');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
