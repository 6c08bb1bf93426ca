import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MANAGED_ES_VERSION, JAVA_MIN, ensureInstalled, findJava, findMaven, javaMajor, lastLines, readText } from './distribution.ts';

/**
 * A managed local Elasticsearch node for development, tests and CI on machines without Docker.
 * The integ-test distribution (no bundled JDK, 107 MB) is fetched from Maven Central with `mvn` (distribution.ts),
 * unpacked into a cache outside the repo and run daemonised on 127.0.0.1. Every step is idempotent,
 * and a lock file keeps concurrent callers (the server, `npm test`'s pretest, each test worker) from
 * launching it twice.
 */

export interface ManagedNodeStatus { running: boolean; url: string; pid?: number; version: string; home: string }

/**
 * Without options: the node of the cache (IMGPOST_ES_HOME, IMGPOST_ES_PORT, IMGPOST_ES_HEAP). With
 * `nodeDir`: a further node run from the same cached distribution, whose config, data, logs, pid file
 * and start lock all live in that directory (which users other than root must be able to enter),
 * so it can be started and stopped without touching the cache's node; give it a `port` of its own.
 */
export interface ManagedNodeOptions { nodeDir?: string; port?: number; heap?: string; cluster?: ClusterMembership }

/**
 * A node of a multi-node cluster (managed-cluster.ts) instead of a single-node one: its name, its
 * cluster's, and where it finds the others (transport addresses, and the master-eligible names the
 * very first election is among). Needs `nodeDir`.
 */
export interface ClusterMembership { name: string; nodeName: string; seedHosts: string[]; initialMasters: string[] }

const ES_USER = 'imgpost-es';
const CLUSTER = 'imgpost-local';
const START_TIMEOUT_MS = 120_000;
// The nodes of a cluster start together on the same cores, and none is ready before a quorum is.
const CLUSTER_START_TIMEOUT_MS = 240_000;
// A first run downloads 107 MB while holding the lock, so waiters must be patient.
const LOCK_WAIT_MS = 15 * 60_000;
const INSTALL_HINT =
  'apt-get install openjdk-17-jdk-headless maven, or run `docker compose up` instead, or set ELASTICSEARCH_URL';

const isRoot = () => process.getuid?.() === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Layout = ReturnType<typeof layout>;

function layout(opts: ManagedNodeOptions = {}) {
  const home = resolveHome();
  const raw = opts.port !== undefined ? String(opts.port) : process.env.IMGPOST_ES_PORT || '9277';
  const port = Number(raw);
  // The transport port is HTTP + 100, so the upper bound keeps both valid.
  if (!/^\d+$/.test(raw) || port < 1 || port > 65435) throw new Error(`invalid ${opts.port !== undefined ? 'port' : 'IMGPOST_ES_PORT'}=${JSON.stringify(raw)}: must be a port number below 65436`);
  const heap = opts.heap ?? (process.env.IMGPOST_ES_HEAP || '512m');
  if (!/^\d+[kmgKMG]?$/.test(heap)) throw new Error(`invalid ${opts.heap !== undefined ? 'heap' : 'IMGPOST_ES_HEAP'}=${JSON.stringify(heap)}: expected a JVM size such as 512m or 1g`);
  const at = (...parts: string[]) => path.join(home, ...parts);
  const install = at(`elasticsearch-${MANAGED_ES_VERSION}`);
  // A node of its own keeps everything it writes in its directory; the cache's node keeps it in the cache.
  const node = opts.nodeDir === undefined ? undefined : path.resolve(opts.nodeDir);
  const own = (...parts: string[]) => (node ? path.join(node, ...parts) : at(...parts));
  return {
    home, node, install, zipDir: at('download'), zip: at('download', `elasticsearch-${MANAGED_ES_VERSION}.zip`),
    config: node ? path.join(node, 'config') : path.join(install, 'config'),
    data: own('data'), logs: own('logs'), run: own('run'), pidFile: own('run', 'elasticsearch.pid'), lockFile: own('start.lock'),
    heap, port, url: `http://127.0.0.1:${port}`, cluster: node ? opts.cluster : undefined,
    startTimeoutMs: opts.cluster ? CLUSTER_START_TIMEOUT_MS : START_TIMEOUT_MS,
  };
}

/** The cache the managed nodes run from (IMGPOST_ES_HOME or its default). */
export const managedHome = () => resolveHome();

function resolveHome(): string {
  if (process.env.IMGPOST_ES_HOME) return path.resolve(process.env.IMGPOST_ES_HOME);
  const home = path.join(os.homedir(), '.cache', 'imgpost', 'elasticsearch');
  // As root the node runs as an unprivileged user, which cannot enter a private /root (mode 700).
  return isRoot() && unreachableAncestor(home) ? '/var/cache/imgpost/elasticsearch' : home;
}

/** The first existing ancestor directory that users other than its owner cannot traverse. */
function unreachableAncestor(p: string): string | undefined {
  for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
    // A missing directory does not block: mkdir creates it 0755.
    if (fs.existsSync(dir) && (fs.statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

// `GET /` answers 405 on this distribution; cluster health is the readiness signal.
const clusterHealth = async (url: string) => (await getJson<{ status?: string }>(`${url}/_cluster/health`))?.status;
const isReady = (status: string | undefined) => status === 'green' || status === 'yellow';

async function localNodeInfo(url: string): Promise<{ pid?: number; version?: string; home?: string } | undefined> {
  type Node = { version?: string; process?: { id?: number }; settings?: { path?: { home?: string } } };
  const q = 'filter_path=nodes.*.version,nodes.*.process.id,nodes.*.settings.path.home';
  const node = Object.values((await getJson<{ nodes?: Record<string, Node> }>(`${url}/_nodes/_local?${q}`))?.nodes ?? {})[0];
  return node && { pid: node.process?.id, version: node.version, home: node.settings?.path?.home };
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (open: boolean) => { socket.destroy(); resolve(open); };
    socket.once('connect', () => done(true)).once('error', () => done(false)).once('timeout', () => done(false));
  });
}

function readPid(file: string): number | undefined {
  const pid = Number(readText(file)?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function pidAlive(pid: number, mustBeElasticsearch = false): boolean {
  try { process.kill(pid, 0); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; }
  // An unreaped zombie (a container whose pid 1 does not reap) has exited even though kill(0) succeeds.
  if (/\) Z /.test(readText(`/proc/${pid}/stat`) ?? '')) return false;
  // A pid file left over from before a reboot may name an unrelated process now: never signal that.
  // Without /proc (macOS) the pid is trusted.
  return !mustBeElasticsearch || (readText(`/proc/${pid}/cmdline`)?.includes('org.elasticsearch') ?? true);
}

/** The pid of the node this cache runs, if it is alive. */
function managedPid(l: Layout): number | undefined {
  const pid = readPid(l.pidFile);
  return pid !== undefined && pidAlive(pid, true) ? pid : undefined;
}

/** The last lines of a log, without Java stack frames, which crowd out the cause. */
function tail(file: string, n: number): string[] {
  const text = (readText(file) ?? '').slice(-64_000);
  return lastLines(text.split('\n').filter((s) => !/^\s+(at |\.\.\. \d+ more)/.test(s)).join('\n'), n);
}

function configure(l: Layout): void {
  if (l.node) {
    // A config dir of its own, from the distribution's (jvm.options, log4j2.properties, …); the
    // files written for the cache's node, and its keystore, stay behind (the node creates its own).
    const own = new Set(['elasticsearch.yml', 'elasticsearch.keystore', 'jvm.options.d']);
    fs.mkdirSync(l.config, { recursive: true });
    for (const name of fs.readdirSync(path.join(l.install, 'config')).filter((n) => !own.has(n))) {
      fs.cpSync(path.join(l.install, 'config', name), path.join(l.config, name), { recursive: true });
    }
  }
  // Rewritten on every launch so a changed port, heap or home takes effect.
  const c = l.cluster;
  const list = (items: string[]) => `[${items.map((i) => JSON.stringify(i)).join(', ')}]`;
  const discovery = c
    ? [`cluster.name: ${c.name}`, `node.name: ${c.nodeName}`, `discovery.seed_hosts: ${list(c.seedHosts)}`,
      // Read only when the cluster first forms; ignored once its data directories hold a cluster.
      `cluster.initial_master_nodes: ${list(c.initialMasters)}`]
    : [`cluster.name: ${CLUSTER}`, `node.name: ${CLUSTER}`, 'discovery.type: single-node'];
  fs.writeFileSync(path.join(l.config, 'elasticsearch.yml'), [
    '# Written by imgpost (src/elasticsearch/managed-node.ts) on every start; edits are lost.',
    ...discovery,
    // Loopback only: keeps the node private and its bootstrap checks in development mode.
    'network.host: 127.0.0.1', `http.port: ${l.port}`, `transport.port: ${l.port + 100}`,
    'xpack.security.enabled: false',
    // Developer disks are often nearly full; the watermarks would make indices read-only.
    'cluster.routing.allocation.disk.threshold_enabled: false',
    // Tests clean up their indices with wildcards.
    'action.destructive_requires_name: false',
    `path.data: ${l.data}`, `path.logs: ${l.logs}`, '',
  ].join('\n'));
  const optsDir = path.join(l.config, 'jvm.options.d');
  fs.mkdirSync(optsDir, { recursive: true });
  fs.writeFileSync(path.join(optsDir, 'heap.options'), `-Xms${l.heap}\n-Xmx${l.heap}\n`);
}

/** As root: the unprivileged account the node runs as (Elasticsearch refuses to run as root). */
function ensureUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, ES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try { id('-u'); } catch { execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ES_USER], { stdio: 'ignore' }); }
  return { uid: id('-u'), gid: id('-g') };
}

/** Exclusive lock across processes; resolves undefined when the node became ready while we waited. */
async function acquireLock(l: Layout, log: (line: string) => void): Promise<(() => void) | undefined> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    try {
      const fh = await fsp.open(l.lockFile, 'wx');
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return () => fs.rmSync(l.lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readPid(l.lockFile);
    let age = 0;
    try { age = Date.now() - fs.statSync(l.lockFile).mtimeMs; } catch { continue; }
    // An empty lock is one being written right now, unless it is old.
    if (holder === undefined ? age > 10_000 : !pidAlive(holder)) {
      // Rename rather than unlink, so of two processes clearing the same stale lock only one succeeds;
      // should we have moved a fresh lock taken meanwhile, link it back (fails if yet another exists).
      const grave = `${l.lockFile}.stale-${process.pid}`;
      try { fs.renameSync(l.lockFile, grave); } catch { continue; }
      const taken = readPid(grave);
      if (taken !== undefined && taken !== holder && pidAlive(taken)) { try { fs.linkSync(grave, l.lockFile); } catch { /* ignore */ } }
      fs.rmSync(grave, { force: true });
      continue;
    }
    if (!announced) log(`another process (pid ${holder ?? '?'}) is starting Elasticsearch; waiting for it…`);
    announced = true;
    if (isReady(await clusterHealth(l.url))) return undefined;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${l.lockFile} (held by pid ${holder}); remove it if that process is gone`);
    await sleep(1000);
  }
}

/** The error for a failed start: one line, then the ends of the node's log and of the launcher's output. */
function startError(l: Layout, why: string): Error {
  const lines = [`Elasticsearch did not start: ${why} (logs in ${l.logs})`];
  for (const [f, n] of [[path.join(l.logs, `${l.cluster?.name ?? CLUSTER}.log`), 20], [path.join(l.logs, 'launcher.log'), 8]] as const) {
    const t = tail(f, n);
    if (t.length) lines.push(`--- last lines of ${f} ---`, ...t);
  }
  return new Error(lines.join('\n'));
}

async function waitForReady(l: Layout, log: (line: string) => void, launcher?: Promise<number | null>, timeoutMs = l.startTimeoutMs): Promise<void> {
  const start = Date.now();
  let exitCode: number | null | undefined;
  void launcher?.then((code) => { exitCode = code; });
  for (let lastReport = start; ;) {
    const status = await clusterHealth(l.url);
    if (isReady(status)) return;
    // `elasticsearch -d` returns once the node has started or failed; non-zero means failed.
    if (exitCode !== undefined && exitCode !== 0) throw startError(l, `the launcher exited with code ${exitCode}`);
    if (exitCode === 0 && managedPid(l) === undefined) throw startError(l, 'the node exited right after starting');
    const elapsed = Date.now() - start;
    if (elapsed > timeoutMs) throw startError(l, `no ${status ? `yellow/green health (it is ${status})` : 'answer'} on ${l.url} after ${Math.round(elapsed / 1000)} s`);
    if (Date.now() - lastReport >= 5000) {
      lastReport = Date.now();
      log(`waiting for Elasticsearch on ${l.url} (${Math.round(elapsed / 1000)} s${status ? `, health ${status}` : ''})…`);
    }
    await sleep(500);
  }
}

async function launch(l: Layout, javaHome: string, log: (line: string) => void): Promise<void> {
  for (const dir of [l.data, l.logs, l.run]) fs.mkdirSync(dir, { recursive: true });
  let owner: { uid: number; gid: number } | undefined;
  if (isRoot()) {
    for (const dir of l.node ? [l.home, l.node] : [l.home]) {
      const blocked = unreachableAncestor(path.join(dir, 'x'));
      if (blocked) throw new Error(`${dir} is inside ${blocked}, which user ${ES_USER} cannot enter: ${l.node ? 'use a node directory outside it (mode 755)' : 'set IMGPOST_ES_HOME to a directory outside it'}`);
    }
    owner = ensureUser();
    // The node writes its keystore into config/, gc logs under its home, and data, logs and pid file.
    execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, l.install, l.config, l.data, l.logs, l.run]);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, ES_JAVA_HOME: javaHome, ES_PATH_CONF: l.config };
  delete env.JAVA_HOME; // else the launcher warns that it ignores it
  if (owner) env.HOME = l.run;
  const launcherLog = path.join(l.logs, 'launcher.log');
  log(`starting Elasticsearch ${MANAGED_ES_VERSION} on ${l.url} (Java ${javaMajor(javaHome)} at ${javaHome})…`);
  const out = fs.openSync(launcherLog, 'w');
  // detached: its own session, so a Ctrl-C in the terminal that started it does not stop the node.
  const child = spawn(path.join(l.install, 'bin', 'elasticsearch'), ['-d', '-p', l.pidFile], {
    cwd: l.install, env, stdio: ['ignore', out, out], detached: true, ...owner,
  });
  fs.closeSync(out);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => { fs.appendFileSync(launcherLog, `${err.message}\n`); resolve(-1); });
  });
  child.unref();
  await waitForReady(l, log, exited);
}

const inflight = new Map<string, Promise<ManagedNodeStatus>>();

/** Idempotent: returns the node answering on the port, else fetches, unpacks and starts one. */
export function startManagedNode(opts: { log?: (line: string) => void } & ManagedNodeOptions = {}): Promise<ManagedNodeStatus> {
  const { log, ...node } = opts;
  let l: Layout;
  try { l = layout(node); } catch (err) { return Promise.reject(err); }
  // Callers in one process share one attempt per node; other processes are kept out by the lock file.
  const key = l.lockFile;
  let attempt = inflight.get(key);
  if (!attempt) {
    attempt = start(l, node, log ?? (() => {})).finally(() => inflight.delete(key));
    inflight.set(key, attempt);
  }
  return attempt;
}

/** A further node's distribution: installed under the cache's own lock, as its node would do. */
async function ensureSharedInstall(l: Layout, javaHome: string, mvn: string | undefined, log: (line: string) => void): Promise<void> {
  const installed = () => fs.existsSync(path.join(l.install, 'bin', 'elasticsearch'));
  if (installed()) return;
  const cache = layout();
  await fsp.mkdir(cache.home, { recursive: true });
  const release = await acquireLock(cache, log);
  // No lock returned: the cache's node became ready meanwhile, so the distribution is there.
  if (!release) return;
  try {
    if (!installed()) await ensureInstalled(cache, javaHome, mvn, log);
  } finally {
    release();
  }
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
      log(`${ours ? 'the managed node is already starting' : `something already listens on ${l.url}`}; waiting for it to report healthy…`);
      await waitForReady(l, log, undefined, ours ? l.startTimeoutMs : 30_000).catch((err: Error) => {
        throw ours ? err : new Error(`port ${l.port} is in use but not by a healthy Elasticsearch: free it or ${l.node ? 'choose another port' : 'set IMGPOST_ES_PORT'}`);
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
  return { running: true, ...base, pid: managedPid(l) ?? info?.pid, version: info?.version ?? MANAGED_ES_VERSION };
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
  try { process.kill(pid, 'SIGTERM'); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err; }
  for (let waited = 0; pidAlive(pid); waited += 250) {
    if (waited === 60_000) process.kill(pid, 'SIGKILL');
    if (waited > 70_000) throw new Error(`Elasticsearch (pid ${pid}) did not exit`);
    await sleep(250);
  }
  fs.rmSync(l.pidFile, { force: true });
}
