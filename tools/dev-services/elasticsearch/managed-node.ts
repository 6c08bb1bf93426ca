/**
 * A managed local Elasticsearch node for development, tests and CI on machines without Docker.
 * The integ-test distribution (no bundled JDK, 107 MB) is fetched from Maven Central with `mvn` (distribution.ts),
 * unpacked into a cache outside the repo and run daemonised on 127.0.0.1. Every step is idempotent,
 * and a lock file keeps concurrent callers (the server, `npm test`'s pretest, each test worker) from
 * launching it twice.
 *
 * This file is the process control (start, wait for health, status, stop); where things live is
 * node-layout.ts, installing and the OS user node-install.ts, the start lock and pid file
 * node-lock.ts, the HTTP checks node-probe.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { childProcessEnv } from '../../../src/config.ts';
import { findMaven, javaMajor, lastLines, readText } from '../shared/jvm-tools.ts';
import { pidAlive, portOpen } from '../shared/processes.ts';
import { MANAGED_ES_VERSION, JAVA_MIN, ensureInstalled, findJava } from './distribution.ts';
import { configure, ensureSharedInstall, prepareOwner, QUICK_START_JVM_OPTIONS } from './node-install.ts';
import { CLUSTER, layout, type Layout, type ManagedNodeOptions, type ManagedNodeStatus } from './node-layout.ts';
import { acquireLock, managedPid } from './node-lock.ts';
import { clusterHealth, isReady, localNodeInfo } from './node-probe.ts';

export { managedHome, type ClusterMembership, type ManagedNodeOptions, type ManagedNodeStatus } from './node-layout.ts';

const INSTALL_HINT =
  'apt-get install openjdk-17-jdk-headless maven, or run `docker compose up` instead, or set ELASTICSEARCH_URL';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The last lines of a log, without Java stack frames, which crowd out the cause. */
function tail(file: string, n: number): string[] {
  const text = (readText(file) ?? '').slice(-64_000);
  return lastLines(
    text
      .split('\n')
      .filter((s) => !/^\s+(at |\.\.\. \d+ more)/.test(s))
      .join('\n'),
    n,
  );
}

/** The error for a failed start: one line, then the ends of the node's log and of the launcher's output. */
function startError(l: Layout, why: string): Error {
  const lines = [`Elasticsearch did not start: ${why} (logs in ${l.logs})`];
  for (const [f, n] of [
    [path.join(l.logs, `${l.cluster?.name ?? CLUSTER}.log`), 20],
    [path.join(l.logs, 'launcher.log'), 8],
  ] as const) {
    const t = tail(f, n);
    if (t.length) lines.push(`--- last lines of ${f} ---`, ...t);
  }
  return new Error(lines.join('\n'));
}

async function waitForReady(
  l: Layout,
  log: (line: string) => void,
  launcher?: Promise<number | null>,
  timeoutMs = l.startTimeoutMs,
): Promise<void> {
  const start = Date.now();
  let exitCode: number | null | undefined;
  void launcher?.then((code) => {
    exitCode = code;
  });
  for (let lastReport = start; ; ) {
    const status = await clusterHealth(l.url);
    if (isReady(status)) return;
    // `elasticsearch -d` returns once the node has started or failed; non-zero means failed.
    if (exitCode !== undefined && exitCode !== 0) throw startError(l, `the launcher exited with code ${exitCode}`);
    if (exitCode === 0 && managedPid(l) === undefined) throw startError(l, 'the node exited right after starting');
    const elapsed = Date.now() - start;
    if (elapsed > timeoutMs)
      throw startError(
        l,
        `no ${status ? `yellow/green health (it is ${status})` : 'answer'} on ${l.url} after ${Math.round(elapsed / 1000)} s`,
      );
    if (Date.now() - lastReport >= 5000) {
      lastReport = Date.now();
      log(
        `waiting for Elasticsearch on ${l.url} (${Math.round(elapsed / 1000)} s${status ? `, health ${status}` : ''})…`,
      );
    }
    await sleep(500);
  }
}

async function launch(l: Layout, javaHome: string, log: (line: string) => void): Promise<void> {
  for (const dir of [l.data, l.logs, l.run]) fs.mkdirSync(dir, { recursive: true });
  const owner = prepareOwner(l);
  // JAVA_HOME removed, else the launcher warns that it ignores it.
  const env = childProcessEnv({
    ES_JAVA_HOME: javaHome,
    ES_PATH_CONF: l.config,
    JAVA_HOME: undefined,
    ...(owner ? { HOME: l.run } : {}),
    // The launcher's own JVM (it starts the node's) compiles as the node's does.
    ...(l.quickStart ? { CLI_JAVA_OPTS: QUICK_START_JVM_OPTIONS } : {}),
  });
  const launcherLog = path.join(l.logs, 'launcher.log');
  log(`starting Elasticsearch ${MANAGED_ES_VERSION} on ${l.url} (Java ${javaMajor(javaHome)} at ${javaHome})…`);
  const out = fs.openSync(launcherLog, 'w');
  // detached: its own session, so a Ctrl-C in the terminal that started it does not stop the node.
  const child = spawn(path.join(l.install, 'bin', 'elasticsearch'), ['-d', '-p', l.pidFile], {
    cwd: l.install,
    env,
    stdio: ['ignore', out, out],
    detached: true,
    ...owner,
  });
  fs.closeSync(out);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => {
      fs.appendFileSync(launcherLog, `${err.message}\n`);
      resolve(-1);
    });
  });
  child.unref();
  await waitForReady(l, log, exited);
}

const inflight = new Map<string, Promise<ManagedNodeStatus>>();

/** Idempotent: returns the node answering on the port, else fetches, unpacks and starts one. */
export function startManagedNode(
  opts: { log?: (line: string) => void } & ManagedNodeOptions = {},
): Promise<ManagedNodeStatus> {
  const { log, ...node } = opts;
  let l: Layout;
  try {
    l = layout(node);
  } catch (err) {
    return Promise.reject(err);
  }
  // Callers in one process share one attempt per node; other processes are kept out by the lock file.
  const key = l.lockFile;
  let attempt = inflight.get(key);
  if (!attempt) {
    attempt = start(l, node, log ?? (() => {})).finally(() => inflight.delete(key));
    inflight.set(key, attempt);
  }
  return attempt;
}

async function start(l: Layout, node: ManagedNodeOptions, log: (line: string) => void): Promise<ManagedNodeStatus> {
  const status = () => managedNodeStatus(node);
  if (isReady(await clusterHealth(l.url))) return status();
  await fsp.mkdir(l.node ?? l.home, { recursive: true });
  const release = await acquireLock(l, log);
  try {
    // Re-check: whoever held the lock may have started it.
    if (isReady(await clusterHealth(l.url))) return status();
    if (managedPid(l) !== undefined || (await portOpen(l.port))) {
      // Our node still starting (or red), or someone else's: wait for it rather than launch a second.
      const ours = managedPid(l) !== undefined;
      log(
        `${ours ? 'the managed node is already starting' : `something already listens on ${l.url}`}; waiting for it to report healthy…`,
      );
      await waitForReady(l, log, undefined, ours ? l.startTimeoutMs : 30_000).catch((err: Error) => {
        throw ours
          ? err
          : new Error(
              `port ${l.port} is in use but not by a healthy Elasticsearch: free it or ${l.node ? 'choose another port' : 'set IMGPOST_ES_PORT'}`,
            );
      });
      return status();
    }
    const java = findJava(log);
    const mvn = findMaven();
    // Maven is needed only until the zip is downloaded.
    const needMaven = !mvn && !fs.existsSync(path.join(l.install, 'bin', 'elasticsearch')) && !fs.existsSync(l.zip);
    if (!java || needMaven) {
      const what = [!java && `a Java ${JAVA_MIN}+ JDK`, needMaven && 'Maven'].filter(Boolean).join(' and ');
      throw new Error(`Elasticsearch needs ${what} to be fetched and run locally: ${INSTALL_HINT}`);
    }
    if (l.node) await ensureSharedInstall(l, java.home, mvn, log);
    else await ensureInstalled(l, java.home, mvn, log);
    configure(l);
    await launch(l, java.home, log);
    log(`Elasticsearch is ready on ${l.url}`);
    return status();
  } finally {
    release?.();
  }
}

export async function managedNodeStatus(opts: ManagedNodeOptions = {}): Promise<ManagedNodeStatus> {
  const l = layout(opts);
  const status = await clusterHealth(l.url);
  const base = { url: l.url, version: MANAGED_ES_VERSION, home: l.node ?? l.home };
  if (status === undefined) return { running: false, ...base, pid: managedPid(l) };
  // The node may have been started by another checkout or by hand: report what actually answers.
  const info = await localNodeInfo(l.url);
  return {
    running: true,
    ...base,
    pid: managedPid(l) ?? info?.pid,
    version: info?.version ?? MANAGED_ES_VERSION,
    ...(info?.jvmArguments ? { quickStart: info.jvmArguments.includes(QUICK_START_JVM_OPTIONS) } : {}),
  };
}

/**
 * Stops the node this cache runs (found by pid file, or by its path.home), or with `nodeDir` that
 * node (by its pid file only: every node shares path.home); leaves other nodes alone. Resolves once
 * the process has exited.
 */
export async function stopManagedNode(opts: ManagedNodeOptions = {}): Promise<void> {
  const l = layout(opts);
  const info = managedPid(l) === undefined && !l.node ? await localNodeInfo(l.url) : undefined;
  const pid = managedPid(l) ?? (info?.home === l.install ? info.pid : undefined);
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
  for (let waited = 0; pidAlive(pid); waited += 250) {
    if (waited === 60_000) process.kill(pid, 'SIGKILL');
    if (waited > 70_000) throw new Error(`Elasticsearch (pid ${pid}) did not exit`);
    await sleep(250);
  }
  fs.rmSync(l.pidFile, { force: true });
}
