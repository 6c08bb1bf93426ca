import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import { readText } from './jvm-tools.ts';

/**
 * The managed services' files and checks that say who is doing what: pid files, whether a process
 * is alive (and still the one its pid file names), whether a port is taken, and the lock file that
 * keeps concurrent callers (the server, `npm test`'s pretest, each test worker) from launching or
 * installing a service twice.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pid a pid file or a lock file holds (its first word). */
export function readPid(file: string): number | undefined {
  const pid = Number(readText(file)?.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether the process runs. With `commandLineHas`, also whether its command line holds that text:
 * a pid file left over from before a reboot may name an unrelated process now, which must never be
 * signalled. Without /proc (macOS) the pid is trusted.
 */
export function pidAlive(pid: number, commandLineHas?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // An unreaped zombie (a container whose pid 1 does not reap) has exited even though kill(0) succeeds.
  if (/\) Z /.test(readText(`/proc/${pid}/stat`) ?? '')) return false;
  return commandLineHas === undefined || (readText(`/proc/${pid}/cmdline`)?.includes(commandLineHas) ?? true);
}

/** Whether something accepts connections on the loopback port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket
      .once('connect', () => done(true))
      .once('error', () => done(false))
      .once('timeout', () => done(false));
  });
}

export interface LockOptions {
  waitMs: number;
  /** How often a waiter looks again (default 500 ms). */
  pollMs?: number;
  /** Called once, when the lock is found held. */
  onWait?: (holder: number | undefined) => void;
  /** Whether the work the holder is doing is finished (no need to take the lock then). */
  done?: () => boolean | Promise<boolean>;
}

/**
 * An exclusive lock across processes: a file created with O_EXCL holding the owner's pid. Resolves
 * with a release function once the lock is ours, or with undefined as soon as `done()` says the
 * holder's work is finished. A lock whose owner has died is taken over (renamed away first, so of
 * two processes clearing the same stale lock only one succeeds).
 */
export async function acquireFileLock(file: string, opts: LockOptions): Promise<(() => void) | undefined> {
  const deadline = Date.now() + opts.waitMs;
  let announced = false;
  for (;;) {
    try {
      const fh = await fsp.open(file, 'wx');
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readPid(file);
    let age: number;
    try {
      age = Date.now() - fs.statSync(file).mtimeMs;
    } catch {
      continue;
    }
    // An empty lock is one being written right now, unless it is old.
    if (holder === undefined ? age > 10_000 : !pidAlive(holder)) {
      const grave = `${file}.stale-${process.pid}`;
      try {
        fs.renameSync(file, grave);
      } catch {
        continue;
      }
      const taken = readPid(grave);
      // We moved a fresh lock taken meanwhile: link it back (fails if yet another exists).
      if (taken !== undefined && taken !== holder && pidAlive(taken)) {
        try {
          fs.linkSync(grave, file);
        } catch {
          /* yet another lock exists */
        }
      }
      fs.rmSync(grave, { force: true });
      continue;
    }
    if (!announced) opts.onWait?.(holder);
    announced = true;
    if (opts.done && (await opts.done())) return undefined;
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting for ${file} (held by pid ${holder}); remove it if that process is gone`);
    }
    await sleep(opts.pollMs ?? 500);
  }
}
