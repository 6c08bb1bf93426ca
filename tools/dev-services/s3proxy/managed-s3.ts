import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { childProcessEnv, loadDevServicesConfig } from '../../../src/config.ts';
import { lastLines, readText } from '../shared/jvm-tools.ts';
import { acquireFileLock, pidAlive, portOpen, readPid } from '../shared/processes.ts';
import { S3PROXY_JAVA_MIN, S3PROXY_VERSION, INSTALL_HINT, ensureJar, findJava } from './distribution.ts';
import { configure, credentialsOf, type Layout, layout, type ManagedS3Options, savedPort } from './layout.ts';

/**
 * A managed local S3 server for development, tests and CI (issue 26): S3Proxy (distribution.ts) with
 * jclouds' `filesystem` backend (a bucket is a directory under `<dir>/data`, an object a file in it),
 * bound to 127.0.0.1, AWS signature v2 or v4 with credentials generated once per directory. Runs
 * daemonised (its own session, so a Ctrl-C in the terminal that started it does not stop it) as the
 * user who starts it: unlike Elasticsearch, S3Proxy does not refuse root, so there is no account to
 * create. Every step is idempotent, and a lock file keeps concurrent callers from launching it twice.
 * Its directory, credentials and properties file: layout.ts.
 */

export interface ManagedS3Status {
  running: boolean;
  /** S3_ENDPOINT */
  endpoint: string;
  port: number;
  pid?: number;
  version: string;
  dir: string;
  /** The filesystem backend's base directory: one directory per bucket. */
  dataDir: string;
  logFile: string;
  /** S3Proxy accepts any region in a signature; this is the one to configure. */
  region: string;
  forcePathStyle: true;
  accessKeyId: string;
  secretAccessKey: string;
}

export const LOCAL_REGION = 'us-east-1';
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 15_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Whether an S3 server answers on the port: any HTTP answer carrying an S3 request id (an anonymous `GET /` is a 403).
 */
async function s3Answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.headers.has('x-amz-request-id');
  } catch {
    return false;
  }
}

/** The pid of this directory's S3Proxy, if that process is alive and still runs this directory's properties. */
function managedPid(l: Layout): number | undefined {
  const pid = readPid(l.pidFile);
  return pid !== undefined && pidAlive(pid, l.properties) ? pid : undefined;
}
function startError(l: Layout, why: string): Error {
  const tail = lastLines(
    (readText(l.logFile) ?? '')
      .slice(-32_000)
      .split('\n')
      .filter((s) => !/^\s+(at |\.\.\. \d+ more)/.test(s))
      .join('\n'),
    15,
  );
  return new Error(
    [
      `S3Proxy did not start: ${why} (log: ${l.logFile})`,
      ...(tail.length ? [`--- last lines of ${l.logFile} ---`, ...tail] : []),
    ].join('\n'),
  );
}

async function launch(l: Layout, log: (line: string) => void): Promise<void> {
  const java = findJava();
  if (!java) throw new Error(`S3Proxy needs a Java ${S3PROXY_JAVA_MIN}+ JDK to run locally: ${INSTALL_HINT}`);
  const jar = await ensureJar({ log });
  for (const d of [l.data, l.logs, l.run]) fs.mkdirSync(d, { recursive: true });
  configure(l, credentialsOf(l, true)!);
  log(`starting S3Proxy ${S3PROXY_VERSION} on ${l.endpoint} (Java ${java.major}, data in ${l.data})…`);
  const out = fs.openSync(l.logFile, 'w');
  const child = spawn(
    java.bin,
    [
      `-Xmx${l.heap}`,
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      // logback would print its own configuration status (a screenful) on every start.
      '-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener',
      '-jar',
      jar,
      '--properties',
      l.properties,
    ],
    {
      cwd: l.dir,
      stdio: ['ignore', out, out],
      detached: true,
      env: childProcessEnv({ LOG_LEVEL: loadDevServicesConfig().s3proxy.logLevel }),
    },
  );
  fs.closeSync(out);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = signal ? `signal ${signal}` : `code ${code}`;
  });
  child.once('error', (err) => {
    exited = err.message;
  });
  child.unref();
  if (child.pid !== undefined) fs.writeFileSync(l.pidFile, `${child.pid}\n`);
  const start = Date.now();
  for (;;) {
    if (await s3Answers(l.endpoint)) return;
    if (exited) throw startError(l, `it exited (${exited})`);
    if (Date.now() - start > START_TIMEOUT_MS) {
      if (child.pid !== undefined)
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      throw startError(l, `no answer on ${l.endpoint} after ${Math.round((Date.now() - start) / 1000)} s`);
    }
    await sleep(200);
  }
}

const inflight = new Map<string, Promise<ManagedS3Status>>();

/** Idempotent: the directory's S3Proxy if it answers, else fetches (first time) and starts it. */
export function startManagedS3(opts: ManagedS3Options = {}): Promise<ManagedS3Status> {
  let l: Layout;
  try {
    l = layout(opts);
  } catch (err) {
    return Promise.reject(err);
  }
  const log = opts.log ?? (() => {});
  // Callers in one process share one attempt per directory; other processes are kept out by the lock file.
  let attempt = inflight.get(l.lockFile);
  if (!attempt) {
    attempt = start(l, opts, log).finally(() => inflight.delete(l.lockFile));
    inflight.set(l.lockFile, attempt);
  }
  return attempt;
}

async function start(l: Layout, opts: ManagedS3Options, log: (line: string) => void): Promise<ManagedS3Status> {
  const ready = async () => managedPid(l) !== undefined && (await s3Answers(l.endpoint));
  if (await ready()) return managedS3Status(opts);
  await fsp.mkdir(l.dir, { recursive: true });
  const release = await acquireFileLock(l.lockFile, {
    waitMs: 15 * 60_000,
    onWait: (holder) => log(`another process (pid ${holder ?? '?'}) is starting S3Proxy in ${l.dir}; waiting for it…`),
    done: ready,
  });
  try {
    if (!release || (await ready())) return managedS3Status(opts);
    const running = managedPid(l);
    if (running !== undefined) {
      // This directory's server runs but does not answer here: on another port, or still starting.
      const port = Number(savedPort(l.dir));
      if (port !== l.port)
        throw new Error(
          `the S3Proxy of ${l.dir} already runs (pid ${running}) on port ${port}: stop it first (imgpost s3 stop) to move it to port ${l.port}`,
        );
      for (const until = Date.now() + 30_000; Date.now() < until; await sleep(250))
        if (await s3Answers(l.endpoint)) return managedS3Status(opts);
      throw new Error(
        `the S3Proxy of ${l.dir} runs (pid ${running}) but does not answer on ${l.endpoint}; see ${l.logFile}`,
      );
    }
    if (await portOpen(l.port)) {
      throw new Error(
        `port ${l.port} is in use by something other than the S3Proxy of ${l.dir}: free it or ${opts.port !== undefined ? 'choose another port' : 'set IMGPOST_S3_PORT'}`,
      );
    }
    await launch(l, log);
    log(`S3Proxy is ready on ${l.endpoint}`);
    return managedS3Status(opts);
  } finally {
    release?.();
  }
}

export async function managedS3Status(opts: ManagedS3Options = {}): Promise<ManagedS3Status> {
  const l = layout(opts);
  const pid = managedPid(l);
  const creds = credentialsOf(l, false);
  return {
    running: pid !== undefined && (await s3Answers(l.endpoint)),
    endpoint: l.endpoint,
    port: l.port,
    ...(pid !== undefined ? { pid } : {}),
    version: S3PROXY_VERSION,
    dir: l.dir,
    dataDir: l.data,
    logFile: l.logFile,
    region: LOCAL_REGION,
    forcePathStyle: true,
    accessKeyId: creds?.accessKeyId ?? '',
    secretAccessKey: creds?.secretAccessKey ?? '',
  };
}

/**
 * Stops this directory's S3Proxy (SIGTERM, SIGKILL after 15 s, or at once with `kill`); leaves any
 * other process alone. Resolves once it has exited. Returns whether one was running.
 */
export async function stopManagedS3(opts: ManagedS3Options & { kill?: boolean } = {}): Promise<boolean> {
  const l = layout(opts);
  const pid = managedPid(l);
  if (pid === undefined) return false;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };
  // A stopped (SIGSTOP) process would not act on SIGTERM until continued.
  signal('SIGCONT');
  signal(opts.kill ? 'SIGKILL' : 'SIGTERM');
  for (let waited = 0; pidAlive(pid); waited += 100) {
    if (waited === STOP_GRACE_MS) signal('SIGKILL');
    if (waited > STOP_GRACE_MS + 10_000) throw new Error(`S3Proxy (pid ${pid}) did not exit`);
    await sleep(100);
  }
  fs.rmSync(l.pidFile, { force: true });
  return true;
}

/** The settings a server needs to use this S3Proxy (docs/decisions.md §17), for `bucket` and an optional key prefix. */
export function mediaStoreEnv(status: ManagedS3Status, bucket: string, prefix = ''): Record<string, string> {
  return {
    MEDIA_STORE: `s3://${bucket}/${prefix}`,
    S3_ENDPOINT: status.endpoint,
    S3_REGION: status.region,
    S3_ACCESS_KEY_ID: status.accessKeyId,
    S3_SECRET_ACCESS_KEY: status.secretAccessKey,
    S3_FORCE_PATH_STYLE: '1',
  };
}
