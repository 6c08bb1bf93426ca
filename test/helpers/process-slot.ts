import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A temp directory and a reserved port for a server process of a test's own (a dedicated
 * Elasticsearch node, a test S3Proxy). The process in it is killed and the directory removed when
 * the test's process ends, however it ends (teardown, an uncaught error, or ava's SIGTERM on a
 * time-out), or on `release()`; what a test process that died without cleaning up left behind is
 * swept before the next reservation.
 */
export interface ProcessSlot {
  dir: string;
  port: number;
  release(): void;
}

export interface SlotKind {
  /** names the temp directories and port locks of this kind */
  dirPrefix: string;
  portLockPrefix: string;
  /** offsets above the port that must be free too (a node's transport port) */
  alsoFree?: number[];
  /** the directory's server process, if that process still runs it (never signal a reused pid) */
  pidOf(dir: string): number | undefined;
  /** for the error when no port is free */
  what: string;
}

const OWNER_FILE = 'owner';

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};
export const readPid = (file: string) => {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

// Slots this process has open (directory → [port, kind]), for the exit and signal hooks.
const open = new Map<string, { port: number; kind: SlotKind }>();
const portLock = (kind: SlotKind, port: number) => path.join(os.tmpdir(), `${kind.portLockPrefix}${port}.lock`);

/** Synchronous last resort: SIGKILL the process and remove its files. */
function destroySync(dir: string, port: number, kind: SlotKind): void {
  const pid = kind.pidOf(dir);
  if (pid !== undefined)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  fs.rmSync(dir, { recursive: true, force: true });
  if (readPid(portLock(kind, port)) === process.pid) fs.rmSync(portLock(kind, port), { force: true });
}

const destroyAll = () => {
  for (const [dir, { port, kind }] of open) destroySync(dir, port, kind);
  open.clear();
};
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

/** Removes what a test process that died without cleaning up left behind: its processes, directories and port locks. */
function sweepStale(kind: SlotKind): void {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    const file = path.join(tmp, name);
    if (name.startsWith(kind.portLockPrefix)) {
      const owner = readPid(file);
      if (owner !== undefined && !alive(owner)) fs.rmSync(file, { force: true });
    } else if (name.startsWith(kind.dirPrefix)) {
      const [owner, port] = (() => {
        try {
          return fs.readFileSync(path.join(file, OWNER_FILE), 'utf8').trim().split(/\s+/).map(Number);
        } catch {
          return [];
        }
      })();
      // A directory without an owner file yet is one being created right now, unless it is old.
      const age = (() => {
        try {
          return Date.now() - fs.statSync(file).mtimeMs;
        } catch {
          return 0;
        }
      })();
      if (!(owner > 0) ? age < 60_000 : alive(owner)) continue;
      const pid = kind.pidOf(file);
      if (pid !== undefined)
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      fs.rmSync(file, { recursive: true, force: true });
      if (port > 0 && readPid(portLock(kind, port)) === owner) fs.rmSync(portLock(kind, port), { force: true });
    }
  }
}

/**
 * A free port (and its `alsoFree` companions) reserved against other test processes by a lock
 * file. Taken below the ephemeral range, so that while the server is down no outgoing connection of
 * another test is given its port.
 */
async function reservePort(kind: SlotKind): Promise<number> {
  const reach = Math.max(0, ...(kind.alsoFree ?? []));
  let low = 32768;
  try {
    low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    /* not Linux */
  }
  const [min, max] = low - 1 - reach > 12_000 ? [10_000, low - 1 - reach] : [10_000, 65_535 - reach];
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = min + Math.floor(Math.random() * (max - min));
    if (!(await portFree(port))) continue;
    let companionsFree = true;
    for (const offset of kind.alsoFree ?? []) if (!(await portFree(port + offset))) companionsFree = false;
    if (!companionsFree) continue;
    try {
      fs.writeFileSync(portLock(kind, port), `${process.pid}\n`, { flag: 'wx' });
    } catch {
      continue;
    }
    return port;
  }
  throw new Error(`found no free port for ${kind.what}`);
}

export async function reserveSlot(kind: SlotKind, dirMode?: number): Promise<ProcessSlot> {
  sweepStale(kind);
  const port = await reservePort(kind);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), kind.dirPrefix));
  if (dirMode !== undefined) fs.chmodSync(dir, dirMode);
  fs.writeFileSync(path.join(dir, OWNER_FILE), `${process.pid} ${port}\n`);
  hook();
  open.set(dir, { port, kind });
  return {
    dir,
    port,
    release() {
      if (!open.has(dir)) return;
      destroySync(dir, port, kind);
      open.delete(dir);
      if (open.size === 0) unhook();
    },
  };
}
