import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createBucketIfMissing, s3ClientFor, type S3StoreConfig } from '../../src/media-store/s3-client.ts';
import { S3MediaStore } from '../../src/media-store/s3-store.ts';
import {
  LOCAL_REGION,
  mediaStoreEnv,
  startManagedS3,
  stopManagedS3,
} from '../../tools/dev-services/s3proxy/managed-s3.ts';
import type { ManagedS3Options } from '../../tools/dev-services/s3proxy/layout.ts';
import { alive, portFree, readPid, reserveSlot, type SlotKind } from './process-slot.ts';

/**
 * A real S3 server for tests (issue 26): S3Proxy with the filesystem backend, run through the
 * managed-s3 code from the cached jar (fetched from Maven Central on first use), in a temp
 * directory on a free port of its own. `testS3()` starts one per test file (ava runs each file in
 * its own process) and every later call in that file reuses it; give each test a bucket of its own
 * with `newBucket()`. `dedicatedS3()` starts one that a test may stop, kill or pause (SIGSTOP).
 * Either is killed and its directory removed when the test's process ends, however it ends.
 */
export interface TestS3 {
  endpoint: string;
  port: number;
  dir: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The store settings for a bucket (and key prefix, '' or ending in '/'). */
  config(bucket: string, prefix?: string, extra?: Partial<S3StoreConfig>): S3StoreConfig;
  /** Creates a bucket with a fresh name through the S3 API and returns the name. */
  newBucket(): Promise<string>;
  /** A fresh bucket and an S3MediaStore on it (close it, or let the process end). */
  newStore(opts?: {
    prefix?: string;
    timeoutMs?: number;
    maxAttempts?: number;
  }): Promise<{ store: S3MediaStore; bucket: string }>;
  /** The S3Proxy process, while it runs. */
  pid(): number | undefined;
  /** SIGTERM; resolves once it has exited (the port then refuses connections). */
  stop(): Promise<void>;
  /** SIGKILL. */
  kill(): Promise<void>;
  /** SIGSTOP: connections are accepted by the kernel but never answered (a hung store). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Starts it again on the same directory (data kept) and port. */
  start(): Promise<void>;
  /** Stops it and removes its directory; safe to call twice. */
  close(): Promise<void>;
}

/** The S3Proxy of a directory, if that process still runs that directory's properties (never signal a reused pid). */
function proxyPid(dir: string): number | undefined {
  const pid = readPid(path.join(dir, 'run', 's3proxy.pid'));
  if (pid === undefined || !alive(pid)) return undefined;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.join(dir, 's3proxy.properties'))
      ? pid
      : undefined;
  } catch {
    return undefined;
  }
}

const PROXY_SLOT: SlotKind = {
  dirPrefix: 'imgpost-s3-',
  portLockPrefix: 'imgpost-s3-port-',
  pidOf: proxyPid,
  what: 'a test S3Proxy',
};

export async function dedicatedS3(opts: { log?: (line: string) => void } = {}): Promise<TestS3> {
  const slot = await reserveSlot(PROXY_SLOT);
  const { dir, port } = slot;
  const credentials = {
    accessKeyId: `test-${randomBytes(4).toString('hex')}`,
    secretAccessKey: randomBytes(18).toString('base64url'),
  };
  const managed: ManagedS3Options = { dir, port, credentials, heap: '192m', log: opts.log };
  const endpoint = `http://127.0.0.1:${port}`;
  const base = { endpoint, region: LOCAL_REGION, forcePathStyle: true, ...credentials };
  let closed = false;
  const s3: TestS3 = {
    endpoint,
    port,
    dir,
    region: LOCAL_REGION,
    ...credentials,
    config: (bucket, prefix = '', extra = {}) => ({ ...base, bucket, prefix, ...extra }),
    async newBucket() {
      const bucket = `t-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
      const client = s3ClientFor(base);
      try {
        await createBucketIfMissing(client, bucket);
      } finally {
        client.destroy();
      }
      return bucket;
    },
    async newStore(o = {}) {
      const bucket = await s3.newBucket();
      return {
        bucket,
        store: new S3MediaStore(
          s3.config(bucket, o.prefix ?? '', { timeoutMs: o.timeoutMs, maxAttempts: o.maxAttempts }),
        ),
      };
    },
    pid: () => proxyPid(dir),
    async start() {
      if (closed) throw new Error('the test S3Proxy was closed');
      await startManagedS3(managed);
    },
    async stop() {
      await stopManagedS3(managed);
      if (!(await portFree(port))) throw new Error(`port ${port} still answers after S3Proxy was stopped`);
    },
    async kill() {
      await stopManagedS3({ ...managed, kill: true });
    },
    pause() {
      const pid = proxyPid(dir);
      if (pid !== undefined) process.kill(pid, 'SIGSTOP');
    },
    resume() {
      const pid = proxyPid(dir);
      if (pid !== undefined) process.kill(pid, 'SIGCONT');
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await stopManagedS3({ ...managed, kill: true });
      } finally {
        slot.release();
      }
    },
  };
  try {
    await s3.start();
  } catch (err) {
    await s3.close();
    throw err;
  }
  return s3;
}

let shared: Promise<TestS3> | undefined;

/** The test file's S3Proxy: started by the first call, reused by every later one in this process. */
export function testS3(): Promise<TestS3> {
  shared ??= dedicatedS3().catch((err) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

/**
 * The suite's one S3Proxy (like Elasticsearch's node on 9277): `npm test`'s pretest starts it with
 * `imgpost s3 start` (IMGPOST_S3_HOME, port 9390 by default), and this starts it too when it is not
 * running (a file run alone), under the managed code's lock. It is never stopped by a test; each
 * app gets a bucket of its own (`sharedS3Env`). For stop/kill/pause tests use `dedicatedS3()`.
 */
let suiteS3: Promise<import('../../tools/dev-services/s3proxy/managed-s3.ts').ManagedS3Status> | undefined;
export function suiteS3Status() {
  suiteS3 ??= startManagedS3({}).catch((err) => {
    suiteS3 = undefined;
    throw err;
  });
  return suiteS3;
}

/** MEDIA_STORE and S3_* settings for a fresh bucket on the suite's S3Proxy. */
export async function sharedS3Env(): Promise<Record<string, string>> {
  const status = await suiteS3Status();
  const bucket = `t-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const client = s3ClientFor({
    endpoint: status.endpoint,
    region: status.region,
    forcePathStyle: true,
    accessKeyId: status.accessKeyId,
    secretAccessKey: status.secretAccessKey,
  });
  try {
    await createBucketIfMissing(client, bucket);
  } finally {
    client.destroy();
  }
  return mediaStoreEnv(status, bucket);
}

/** The bucket that `env`'s MEDIA_STORE (`s3://bucket/prefix/`, as sharedS3Env gives it) names. */
export const bucketNameOf = (env: Record<string, string>): string =>
  env.MEDIA_STORE.slice('s3://'.length).replace(/\/.*$/, '');

/** A test's own view of `env`'s bucket, straight to S3Proxy with `env`'s S3_* settings, at `prefix` in it. */
export function bucketStore(env: Record<string, string>, prefix = ''): S3MediaStore {
  return new S3MediaStore({
    bucket: bucketNameOf(env),
    prefix,
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    forcePathStyle: true,
  });
}
