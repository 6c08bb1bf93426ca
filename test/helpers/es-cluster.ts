import crypto from 'node:crypto';
import fs from 'node:fs';
import {
  clusterNodeOptions,
  managedClusterStatus,
  startManagedCluster,
  stopManagedCluster,
  type ClusterSpec,
} from '../../tools/dev-services/elasticsearch/managed-cluster.ts';
import { managedNodeStatus, startManagedNode } from '../../tools/dev-services/elasticsearch/managed-node.ts';
import { reserveNodeSlot, type NodeSlot } from './dedicated-es.ts';

/**
 * An Elasticsearch cluster of a test's own (never joined to the shared node: a cluster name and
 * ports of its own), run through the managed-cluster code from the cached distribution. Each node
 * lives in a dedicated-es slot, so it is killed and removed when the test's process ends, however
 * it ends.
 */
export interface ClusterNode {
  name: string;
  url: string;
  /** the node's process id while it runs */
  pid(): Promise<number | undefined>;
  /** SIGKILL, as a crash or the OOM killer would; resolves once the process is gone */
  kill9(): Promise<void>;
  /** starts it again on its data directory; resolves once it has joined the cluster */
  start(): Promise<void>;
}

export interface EsCluster {
  /** every node's URL, comma-separated (what ELASTICSEARCH_URL takes) */
  url: string;
  name: string;
  nodes: ClusterNode[];
  /** the cluster's health as the first node that answers sees it */
  health(): Promise<{ status?: string; joined: number }>;
  close(): Promise<void>;
}

/** Exited counts as gone even while unreaped (a zombie). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

export async function startEsCluster(
  opts: {
    size?: number;
    heap?: string;
    log?: (line: string) => void;
    /** runs once the nodes' addresses are known (`url` as EsCluster has it), before any node starts */
    beforeStart?: (url: string) => Promise<void>;
  } = {},
): Promise<EsCluster> {
  const size = opts.size ?? 3;
  const slots: NodeSlot[] = [];
  for (let i = 0; i < size; i++) slots.push(await reserveNodeSlot());
  const spec: ClusterSpec = {
    name: `imgpost-test-${crypto.randomBytes(4).toString('hex')}`,
    nodes: slots.map((s) => ({ dir: s.dir, port: s.port })),
    heap: opts.heap ?? '320m',
    // A test's cluster lives minutes: C1 only halves its nodes' start-up CPU.
    quickStart: true,
  };
  const log = opts.log ?? (() => {});
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await stopManagedCluster(spec);
    } finally {
      for (const s of slots) s.release();
    }
  };
  let t0: number;
  try {
    await opts.beforeStart?.(
      clusterNodeOptions(spec)
        .map((n) => n.url)
        .join(','),
    );
    t0 = performance.now();
    await startManagedCluster(spec, log);
  } catch (err) {
    await close();
    throw err;
  }
  log(`cluster ${spec.name} of ${size} started in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const nodes = clusterNodeOptions(spec).map((node): ClusterNode => {
    const pid = async () => (await managedNodeStatus(node)).pid;
    return {
      name: node.name,
      url: node.url,
      pid,
      async kill9() {
        const p = await pid();
        if (p === undefined) throw new Error(`${node.name} is not running`);
        process.kill(p, 'SIGKILL');
        for (const deadline = Date.now() + 10_000; alive(p); ) {
          if (Date.now() > deadline) throw new Error(`${node.name} (pid ${p}) survived SIGKILL`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      async start() {
        await startManagedNode({ ...node, log: (line) => log(`${node.name}: ${line}`) });
      },
    };
  });
  return {
    url: nodes.map((n) => n.url).join(','),
    name: spec.name,
    nodes,
    async health() {
      const s = await managedClusterStatus(spec);
      return { status: s.status, joined: s.joined };
    },
    close,
  };
}
