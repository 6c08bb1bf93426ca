import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startManagedNode, stopManagedNode } from '../../src/elasticsearch/managed-node.ts';

/**
 * An Elasticsearch node of a test's own, so the test can really stop and restart it (the shared
 * node on 9277 serves every other test and is never touched). It runs from the cached distribution
 * through the managed-node code, with its config, data, logs and pid file in a temp directory and
 * on a free port of its own, and is killed and removed when the test's process ends however it
 * ends (teardown, an uncaught error, or ava's SIGTERM on a timeout).
 */
export interface DedicatedEs {
  url: string;
  port: number;
  dir: string;
  /** SIGTERM; resolves once the process has exited and the port refuses connections. */
  stop(): Promise<void>;
  /** Starts it again on the same data dir and port; resolves once it reports yellow or green. */
  start(): Promise<void>;
  /** Stops it if it runs and removes its directory; safe to call twice. */
  close(): Promise<void>;
}

const NODE_PREFIX = 'imgpost-es-node-';
const PORT_LOCK_PREFIX = 'imgpost-es-port-';
const OWNER_FILE = 'owner';
const portLock = (port: number) => path.join(os.tmpdir(), `${PORT_LOCK_PREFIX}${port}.lock`);

const alive = (pid: number) => {
  try { process.kill(pid, 0); return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
};
const readPid = (file: string) => {
  try { const pid = Number(fs.readFileSync(file, 'utf8').trim().split(/\s+/)[0]); return Number.isInteger(pid) && pid > 0 ? pid : undefined; } catch { return undefined; }
};
/** The node's pid, if that process is still an Elasticsearch (never signal a reused pid). */
function nodePid(dir: string): number | undefined {
  const pid = readPid(path.join(dir, 'run', 'elasticsearch.pid'));
  if (pid === undefined || !alive(pid)) return undefined;
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('org.elasticsearch') ? pid : undefined; } catch { return undefined; }
}

/** Synchronous last resort: SIGKILL the node and remove its files. */
function destroySync(dir: string, port: number): void {
  const pid = nodePid(dir);
  if (pid !== undefined) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  fs.rmSync(dir, { recursive: true, force: true });
  if (readPid(portLock(port)) === process.pid) fs.rmSync(portLock(port), { force: true });
}

// Nodes this process has open, for the exit and signal hooks.
const open = new Map<string, number>();
const destroyAll = () => { for (const [dir, port] of open) destroySync(dir, port); open.clear(); };
function onSignal(signal: NodeJS.Signals) {
  destroyAll();
  unhook();
  // No listener left: the default action (the process ends as it would have).
  process.kill(process.pid, signal);
}
const hooked = { exit: destroyAll, SIGTERM: onSignal, SIGINT: onSignal, SIGHUP: onSignal } as const;
function hook() {
  if (open.size > 0) return;
  process.on('exit', hooked.exit);
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(s, hooked[s]);
}
function unhook() {
  process.off('exit', hooked.exit);
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(s, hooked[s]);
}

/** Removes what a test process that died without cleaning up left behind: its nodes and port locks. */
function sweepStale(): void {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    const file = path.join(tmp, name);
    if (name.startsWith(NODE_PREFIX)) {
      const [owner, port] = (() => { try { return fs.readFileSync(path.join(file, OWNER_FILE), 'utf8').trim().split(/\s+/).map(Number); } catch { return []; } })();
      // A directory without an owner file yet is one being created right now, unless it is old.
      const age = (() => { try { return Date.now() - fs.statSync(file).mtimeMs; } catch { return 0; } })();
      if (!(owner > 0) ? age < 60_000 : alive(owner)) continue;
      const pid = nodePid(file);
      if (pid !== undefined) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      fs.rmSync(file, { recursive: true, force: true });
      if (port > 0 && readPid(portLock(port)) === owner) fs.rmSync(portLock(port), { force: true });
    } else if (name.startsWith(PORT_LOCK_PREFIX)) {
      const owner = readPid(file);
      if (owner !== undefined && !alive(owner)) fs.rmSync(file, { force: true });
    }
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free HTTP port whose transport port (+100) is free too, reserved against other test processes
 * by a lock file. Taken below the ephemeral range, so that while the node is down no outgoing
 * connection of another test is given its port.
 */
async function reservePort(): Promise<number> {
  let low = 32768;
  try { low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low; } catch { /* not Linux */ }
  const [min, max] = low - 101 > 12_000 ? [10_000, low - 101] : [10_000, 65_435];
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = min + Math.floor(Math.random() * (max - min));
    if (!(await portFree(port)) || !(await portFree(port + 100))) continue;
    try {
      fs.writeFileSync(portLock(port), `${process.pid}\n`, { flag: 'wx' });
    } catch {
      continue;
    }
    return port;
  }
  throw new Error('found no free port pair for a dedicated Elasticsearch node');
}

/**
 * A directory and a reserved port (HTTP; + 100 for transport) for a node of the test's own: the node
 * in it is killed and the directory removed when the test's process ends, however it ends, or on `release()`.
 */
export interface NodeSlot { dir: string; port: number; release(): void }

export async function reserveNodeSlot(): Promise<NodeSlot> {
  sweepStale();
  const port = await reservePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), NODE_PREFIX));
  // As root the node runs as another user, which must be able to enter the directory.
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, OWNER_FILE), `${process.pid} ${port}\n`);
  hook();
  open.set(dir, port);
  return {
    dir,
    port,
    release() {
      if (!open.has(dir)) return;
      destroySync(dir, port);
      open.delete(dir);
      if (open.size === 0) unhook();
    },
  };
}

export async function startDedicatedEs(opts: { heap?: string; log?: (line: string) => void } = {}): Promise<DedicatedEs> {
  const slot = await reserveNodeSlot();
  const { dir, port } = slot;

  const node = { nodeDir: dir, port, heap: opts.heap ?? '384m' };
  const log = opts.log ?? (() => {});
  let starting: Promise<unknown> | undefined;
  let closed = false;
  const start = async () => {
    if (closed) throw new Error('the dedicated Elasticsearch node was closed');
    const t0 = performance.now();
    starting = startManagedNode({ ...node, log: (line) => log(`es:${port} ${line}`) });
    await starting;
    log(`es:${port} started in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  const stop = async () => {
    await starting?.catch(() => {});
    const t0 = performance.now();
    await stopManagedNode(node);
    if (!(await portFree(port))) throw new Error(`port ${port} still answers after the node was stopped`);
    log(`es:${port} stopped in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    // A start still under way would launch the node after we looked for it: let it finish first.
    await starting?.catch(() => {});
    try {
      await stopManagedNode(node);
    } finally {
      slot.release();
    }
  };
  try {
    await start();
  } catch (err) {
    await close();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, port, dir, start, stop, close };
}
