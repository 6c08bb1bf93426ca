import fs from 'node:fs';
import path from 'node:path';
import { startManagedNode, stopManagedNode } from '../../src/dev-services/elasticsearch/managed-node.ts';
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
