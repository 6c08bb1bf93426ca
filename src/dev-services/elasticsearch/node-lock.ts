/**
 * The managed node's files that say who is doing what: the pid file the node writes, and the start
 * lock that keeps concurrent callers (the server, `npm test`'s pretest, each test worker) from
 * launching or installing it twice. A stale lock (its holder gone) is cleared safely.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { readText } from './distribution.ts';
import type { Layout } from './node-layout.ts';
import { clusterHealth, isReady } from './node-probe.ts';

// A first run downloads 107 MB while holding the lock, so waiters must be patient.
const LOCK_WAIT_MS = 15 * 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function readPid(file: string): number | undefined {
  const pid = Number(readText(file)?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function pidAlive(pid: number, mustBeElasticsearch = false): boolean {
  try { process.kill(pid, 0); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; }
  // An unreaped zombie (a container whose pid 1 does not reap) has exited even though kill(0) succeeds.
  if (/\) Z /.test(readText(`/proc/${pid}/stat`) ?? '')) return false;
  // A pid file left over from before a reboot may name an unrelated process now: never signal that.
  // Without /proc (macOS) the pid is trusted.
  return !mustBeElasticsearch || (readText(`/proc/${pid}/cmdline`)?.includes('org.elasticsearch') ?? true);
}

/** The pid of the node this cache runs, if it is alive. */
export function managedPid(l: Layout): number | undefined {
  const pid = readPid(l.pidFile);
  return pid !== undefined && pidAlive(pid, true) ? pid : undefined;
}

/** Exclusive lock across processes; resolves undefined when the node became ready while we waited. */
export async function acquireLock(l: Layout, log: (line: string) => void): Promise<(() => void) | undefined> {
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
