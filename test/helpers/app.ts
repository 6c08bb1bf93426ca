import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createEsClient } from '../../src/elasticsearch/client.ts';
import { resolveElasticsearchUrl } from '../../src/roles/search-parts.ts';
import { startServer, type Services } from '../../src/roles/server.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { recordResponses } from '../ecosystem/response-recorder.ts';
import { sharedS3Env } from './s3.ts';
import { TEST_PASSWORD_HASH_COST } from './users.ts';

export interface TestApp {
  url: string;
  services: Services;
  server: RunningServer;
  dataDir: string;
  logs: string[];
  /** fetch relative to the app's URL */
  request(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export function tempDir(label = 'imgpost-test'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
}

/** A unique prefix per app, so parallel test files never see each other's indices. */
export const uniquePrefix = () => `t${process.pid}-${crypto.randomBytes(4).toString('hex')}`;

/**
 * Removes every index (and with it every alias) of a test's prefix, with a client of its own: the
 * server that made them may be closed, or a child process already gone. Missing ones and an
 * unreachable node are not errors.
 */
export async function deleteTestIndices(url: string, prefix: string): Promise<void> {
  const es = createEsClient({ url, indexPrefix: prefix });
  await es.indices.delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] }).catch(() => {});
  await es.close();
}

/**
 * Starts the real app (real SQLite file in a temp dir, real Elasticsearch with its own index prefix)
 * on an ephemeral port. `env` overrides configuration.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  opts: { dataDir?: string } = {},
): Promise<TestApp> {
  const dataDir = opts.dataDir ?? tempDir();
  // IMGPOST_TEST_MEDIA_STORE=s3: the same tests on the S3 store (a fresh bucket on the suite's S3Proxy).
  const store = process.env.IMGPOST_TEST_MEDIA_STORE === 's3' && !env.MEDIA_STORE ? await sharedS3Env() : {};
  const config = loadConfig({
    DATA_DIR: dataDir,
    ELASTICSEARCH_INDEX_PREFIX: uniquePrefix(),
    WEBHOOK_ALLOW_PRIVATE: '1',
    HASH_WORKERS: '2',
    LOG_LEVEL: 'debug',
    // Robust descriptors (docs/decisions.md §16) are background work that raises post versions and adds
    // outbox rows after each upload; only the tests about them switch them on.
    ROBUST_DESCRIPTORS: '0',
    // scrypt at its production cost is 32 MiB and ~0.1 s of a core per hash; the suite hashes hundreds.
    PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
    ...store,
    ...(process.env.ELASTICSEARCH_URL ? { ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL } : {}),
    ...env,
  });
  const logs: string[] = [];
  // A test app is a server: it takes the owner lock on its DATA_DIR like `npm start`.
  const services = await startServer(
    config,
    createLogger(config.logLevel, (line) => logs.push(line)),
  );
  // Where the app's indices live, for close() to delete them after the app's own client is closed.
  const esUrl = resolveElasticsearchUrl(config, createLogger('silent')).catch(() => undefined);
  const koa = createApp(services);
  // IMGPOST_RECORD_RESPONSES=<dir>: record every response for the OpenAPI contract check.
  if (process.env.IMGPOST_RECORD_RESPONSES) recordResponses(koa, process.env.IMGPOST_RECORD_RESPONSES);
  const server = await listen(koa, '127.0.0.1', 0);
  const url = `http://127.0.0.1:${server.port}`;
  // Returned URLs (imageURL) must point at this server.
  services.config.publicUrl = url;
  services.config.mediaUrl = `${url}/media`;
  services.ownerLock.describe(url);
  return {
    url,
    services,
    server,
    dataDir,
    logs,
    request: (pathname, init) => fetch(url + pathname, init),
    async close() {
      await server.close(1000);
      // Its loops stop first: the cluster watcher creates the posts index again when it finds it gone, so a
      // check falling between the delete and the stop would leave an index behind.
      await services.close();
      const url = await esUrl;
      if (url !== undefined) await deleteTestIndices(url, services.config.elasticsearch.indexPrefix);
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Apps started one after another on one DATA_DIR and index prefix: a restart. `start()` starts the
 * next; `shutDown(app)` stops one as a server shutdown does (its data and index stay for the next).
 * When the test ends, the app still running is closed (its indices removed) and the directory goes.
 */
export function restartableApps(
  t: ExecutionContext,
  label: string,
): { start(): Promise<TestApp>; shutDown(app: TestApp): Promise<void> } {
  const dataDir = tempDir(`imgpost-${label}`);
  const env = { ELASTICSEARCH_INDEX_PREFIX: uniquePrefix() };
  const running = new Set<TestApp>();
  t.teardown(async () => {
    for (const app of running) await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    async start() {
      const app = await startTestApp(env, { dataDir });
      running.add(app);
      return app;
    },
    async shutDown(app) {
      running.delete(app);
      await app.server.close(1000);
      await app.services.close();
    },
  };
}

/** Waits until every post has its robust descriptor (ROBUST_DESCRIPTORS=1) and the index has its terms. */
export async function descriptorsSettled(app: TestApp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (app.services.postRepository.robust.pendingCount() > 0 || app.services.outbox.backlog().count > 0) {
    if (Date.now() > deadline) throw new Error(`robust descriptors not done in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until the app has no thumbnail work left: thumbnails are made after the upload's response,
 * through DATA_DIR/tmp, so a check of the files or of tmp/ waits for them first (not a fixed sleep).
 */
export async function thumbnailsSettled(app: TestApp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (app.services.thumbnailQueue.size() > 0) {
    if (Date.now() > deadline) throw new Error(`thumbnail work not done in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
