import fs from 'node:fs';
import path from 'node:path';
import { startManagedNode, stopManagedNode } from '../../tools/dev-services/elasticsearch/managed-node.ts';
import { alive, portFree, readPid, reserveSlot, type ProcessSlot, type SlotKind } from './process-slot.ts';

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

/** The node's pid, if that process is still an Elasticsearch (never signal a reused pid). */
function nodePid(dir: string): number | undefined {
  const pid = readPid(path.join(dir, 'run', 'elasticsearch.pid'));
  if (pid === undefined || !alive(pid)) return undefined;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('org.elasticsearch') ? pid : undefined;
  } catch {
    return undefined;
  }
}

const NODE_SLOT: SlotKind = {
  dirPrefix: 'imgpost-es-node-',
  portLockPrefix: 'imgpost-es-port-',
  // the transport port
  alsoFree: [100],
  pidOf: nodePid,
  what: 'a dedicated Elasticsearch node',
};

/**
 * A directory and a reserved port (HTTP; + 100 for transport) for a node of the test's own: the node
 * in it is killed and the directory removed when the test's process ends, however it ends, or on `release()`.
 */
export type NodeSlot = ProcessSlot;

// As root the node runs as another user, which must be able to enter the directory.
export const reserveNodeSlot = (): Promise<NodeSlot> => reserveSlot(NODE_SLOT, 0o755);

export async function startDedicatedEs(
  opts: { heap?: string; log?: (line: string) => void } = {},
): Promise<DedicatedEs> {
  const slot = await reserveNodeSlot();
  const { dir, port } = slot;

  // Lives minutes and starts up to three times: C1 only halves the CPU of each start (node-layout.ts).
  const node = { nodeDir: dir, port, heap: opts.heap ?? '384m', quickStart: true };
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

/**
 * One outage of a dedicated node shared by the tests of a file, which run concurrently: the node
 * stops once every participant has reached `down` and starts again once every participant has
 * reached `up`, so the file pays for one stop and one start (a start is 10-30 s of a JVM on a busy
 * box) however many tests need the node gone. A participant that ends early (a failed assertion)
 * leaves in its teardown, and the phases it did not reach no longer wait for it.
 */
export interface SharedOutage {
  /** resolves once the node has stopped; rejects if stopping it failed */
  down(who: string): Promise<void>;
  /** resolves once the node is back (yellow or green) */
  up(who: string): Promise<void>;
  leave(who: string): void;
}

export function sharedOutage(es: DedicatedEs, participants: string[]): SharedOutage {
  const left = new Set<string>();
  const phase = (action: () => Promise<void>) => {
    const arrived = new Set<string>();
    let run: Promise<void> | undefined;
    let go!: () => void;
    const released = new Promise<void>((resolve) => (go = resolve));
    const check = () => {
      if (run || !participants.every((p) => arrived.has(p) || left.has(p))) return;
      run = action();
      // Awaited by every arrival; a failure with no one left to see it is not an unhandled rejection.
      run.catch(() => {});
      go();
    };
    return {
      check,
      arrive(who: string) {
        if (!participants.includes(who)) throw new Error(`${who} is not a participant of this outage`);
        arrived.add(who);
        check();
        return released.then(() => run);
      },
      done: () => run,
    };
  };
  const stopped = phase(() => es.stop());
  const started = phase(async () => {
    await stopped.done()?.catch(() => {});
    await es.start();
  });
  return {
    down: (who) => stopped.arrive(who),
    up: (who) => started.arrive(who),
    leave(who) {
      left.add(who);
      stopped.check();
      started.check();
    },
  };
}
