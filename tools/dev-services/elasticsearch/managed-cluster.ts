import fs from 'node:fs';
import path from 'node:path';
import { DEV_SERVICE_DEFAULTS, loadDevServicesConfig } from '../../../src/config.ts';
import {
  managedHome,
  managedNodeStatus,
  startManagedNode,
  stopManagedNode,
  type ManagedNodeOptions,
  type ManagedNodeStatus,
} from './managed-node.ts';

/**
 * A local Elasticsearch cluster of several managed nodes (managed-node.ts does each one): the same
 * cached distribution, each node with its own directory (config, data, logs, pid file) and loopback
 * ports, all master-eligible data nodes that find each other through their transport ports. For
 * trying the service on a cluster (`imgpost es start --nodes 3`) and for tests that kill a node.
 */
export interface ClusterSpec {
  /** cluster.name; node names are `<name>-1` … `<name>-N` */
  name: string;
  /** one per node: its directory and HTTP port (the transport port is this + 100) */
  nodes: { dir: string; port: number }[];
  heap?: string;
  /** a test's cluster: every node a quick-start one (node-layout.ts) */
  quickStart?: boolean;
}

export type ClusterNodeOptions = ManagedNodeOptions & { name: string; url: string };

export interface ClusterStatus {
  name: string;
  /** the nodes' URLs, comma-separated: what ELASTICSEARCH_URL takes */
  url: string;
  /** the cluster's health as a running member sees it; undefined when none answers */
  status?: HealthStatus;
  /** nodes in the cluster, as that member sees it */
  joined: number;
  nodes: (ManagedNodeStatus & { name: string })[];
}

/** A cluster's health as Elasticsearch reports it. */
export type HealthStatus = 'green' | 'yellow' | 'red';

const READY_TIMEOUT_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function clusterNodeOptions(spec: ClusterSpec): ClusterNodeOptions[] {
  const names = spec.nodes.map((_, i) => `${spec.name}-${i + 1}`);
  const seedHosts = spec.nodes.map((n) => `127.0.0.1:${n.port + 100}`);
  return spec.nodes.map((n, i) => ({
    name: names[i],
    url: `http://127.0.0.1:${n.port}`,
    nodeDir: n.dir,
    port: n.port,
    heap: spec.heap,
    quickStart: spec.quickStart,
    cluster: { name: spec.name, nodeName: names[i], seedHosts, initialMasters: names },
  }));
}

async function health(url: string): Promise<{ status: HealthStatus; number_of_nodes: number } | undefined> {
  try {
    const res = await fetch(`${url}/_cluster/health?local=true`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as { status: HealthStatus; number_of_nodes: number }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Idempotent: starts the nodes that are not running (all at once: none is ready before a quorum is), then waits until
 * every one has joined.
 */
export async function startManagedCluster(
  spec: ClusterSpec,
  log: (line: string) => void = () => {},
): Promise<ClusterStatus> {
  const nodes = clusterNodeOptions(spec);
  await Promise.all(nodes.map((node) => startManagedNode({ ...node, log: (line) => log(`${node.name}: ${line}`) })));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const status = await managedClusterStatus(spec);
    if (status.joined >= nodes.length && status.status !== 'red') return status;
    if (Date.now() > deadline)
      throw new Error(
        `the cluster ${spec.name} has ${status.joined} of ${nodes.length} nodes (${status.status ?? 'no answer'}) after ${READY_TIMEOUT_MS / 1000} s`,
      );
    await sleep(500);
  }
}

/** Stops every node of the cluster that runs (each by its own pid file); resolves once all have exited. */
export async function stopManagedCluster(spec: ClusterSpec): Promise<void> {
  await Promise.all(clusterNodeOptions(spec).map((node) => stopManagedNode(node)));
}

export async function managedClusterStatus(spec: ClusterSpec): Promise<ClusterStatus> {
  const options = clusterNodeOptions(spec);
  const nodes = await Promise.all(
    options.map(async (node) => ({ name: node.name, ...(await managedNodeStatus(node)) })),
  );
  let seen: Awaited<ReturnType<typeof health>>;
  for (const n of nodes.filter((m) => m.running)) if ((seen = await health(n.url))) break;
  return {
    name: spec.name,
    url: options.map((o) => o.url).join(','),
    status: seen?.status,
    joined: seen?.number_of_nodes ?? 0,
    nodes,
  };
}

/**
 * The cluster `imgpost es start --nodes N` runs: nodes in `<cache>/cluster/node-<i>` on HTTP ports
 * port … port+N-1. Its shape is remembered in `<cache>/cluster/cluster.json`, so `es stop` and
 * `es status` find it, and a start with another shape is refused rather than mixed with old data.
 */
const LOCAL_NAME = 'imgpost-local-cluster';
export const DEFAULT_CLUSTER_PORT = 9280;

const localDir = () => path.join(managedHome(), 'cluster');
const shapeFile = () => path.join(localDir(), 'cluster.json');

function localSpec(size: number, port: number): ClusterSpec {
  const nodes = Array.from({ length: size }, (_, i) => ({
    dir: path.join(localDir(), `node-${i + 1}`),
    port: port + i,
  }));
  const heap = loadDevServicesConfig().elasticsearch.heap ?? DEV_SERVICE_DEFAULTS.esClusterNodeHeap;
  return { name: LOCAL_NAME, nodes, heap };
}

/** The local cluster started before, if any. */
export function savedLocalCluster(): ClusterSpec | undefined {
  try {
    const { size, port } = JSON.parse(fs.readFileSync(shapeFile(), 'utf8')) as { size: number; port: number };
    return localSpec(size, port);
  } catch {
    return undefined;
  }
}

export function localCluster(size: number, port = DEFAULT_CLUSTER_PORT): ClusterSpec {
  if (!Number.isInteger(size) || size < 2 || size > 9)
    throw new Error(`--nodes must be 2 to 9 (one node is \`imgpost es start\` without --nodes)`);
  if (!Number.isInteger(port) || port < 1024 || port + size - 1 > 65435)
    throw new Error('--port must be a port number from 1024 on, leaving room for the nodes after it');
  const saved = savedLocalCluster();
  if (saved && (saved.nodes.length !== size || saved.nodes[0].port !== port)) {
    throw new Error(
      `a local cluster of ${saved.nodes.length} nodes on port ${saved.nodes[0].port} exists in ${localDir()}: run \`imgpost es stop\` and remove that directory to start another shape`,
    );
  }
  fs.mkdirSync(localDir(), { recursive: true, mode: 0o755 });
  fs.writeFileSync(shapeFile(), `${JSON.stringify({ size, port })}\n`);
  return localSpec(size, port);
}
