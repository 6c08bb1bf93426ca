/**
 * The managed node's files that say who is doing what: the pid file the node writes, and the start
 * lock that keeps concurrent callers (the server, `npm test`'s pretest, each test worker) from
 * launching or installing it twice (the lock itself is ../shared/processes.ts's).
 */
import { acquireFileLock, pidAlive, readPid } from '../shared/processes.ts';
import type { Layout } from './node-layout.ts';
import { clusterHealth, isReady } from './node-probe.ts';

// A first run downloads 107 MB while holding the lock, so waiters must be patient.
const LOCK_WAIT_MS = 15 * 60_000;

/** The pid of the node this cache runs, if it is alive (and an Elasticsearch). */
export function managedPid(l: Layout): number | undefined {
  const pid = readPid(l.pidFile);
  return pid !== undefined && pidAlive(pid, 'org.elasticsearch') ? pid : undefined;
}

/** Exclusive lock across processes; resolves undefined when the node became ready while we waited. */
export function acquireLock(l: Layout, log: (line: string) => void): Promise<(() => void) | undefined> {
  return acquireFileLock(l.lockFile, {
    waitMs: LOCK_WAIT_MS,
    pollMs: 1000,
    onWait: (holder) => log(`another process (pid ${holder ?? '?'}) is starting Elasticsearch; waiting for it…`),
    done: async () => isReady(await clusterHealth(l.url)),
  });
}
