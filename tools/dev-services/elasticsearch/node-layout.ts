/**
 * Where a managed Elasticsearch node keeps its things: the cache it runs from (IMGPOST_ES_HOME), the
 * installed distribution, and per node its config, data, logs, pid file and start lock; its port
 * and heap. Every other managed-node file works from this one layout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEV_SERVICE_DEFAULTS, loadDevServicesConfig } from '../../../src/config.ts';
import { MANAGED_ES_VERSION } from './distribution.ts';

export interface ManagedNodeStatus {
  running: boolean;
  url: string;
  pid?: number;
  version: string;
  home: string;
  /** When it answers: whether it compiles with C1 only (started with `quickStart`, `es start --quick`). */
  quickStart?: boolean;
}

/**
 * Without options: the node of the cache (IMGPOST_ES_HOME, IMGPOST_ES_PORT, IMGPOST_ES_HEAP). With
 * `nodeDir`: a further node run from the same cached distribution, whose config, data, logs, pid file
 * and start lock all live in that directory (which users other than root must be able to enter),
 * so it can be started and stopped without touching the cache's node; give it a `port` of its own.
 */
export interface ManagedNodeOptions {
  nodeDir?: string;
  port?: number;
  heap?: string;
  cluster?: ClusterMembership;
  /**
   * A node that lives minutes, not days (a test's own, or the cache's node started for a test suite by
   * `imgpost es start --quick`): its JVMs compile with C1 only. That about halves the CPU of a start, and
   * of the node over a whole `npm test`, where C2 compiled for as much CPU as the node spent serving
   * (bench/notes/test-suite.md). The price is a peak speed that a benchmark or a developer's long-lived
   * node wants, so it is never the default.
   */
  quickStart?: boolean;
}

/**
 * A node of a multi-node cluster (managed-cluster.ts) instead of a single-node one: its name, its
 * cluster's, and where it finds the others (transport addresses, and the master-eligible names the
 * very first election is among). Needs `nodeDir`.
 */
export interface ClusterMembership {
  name: string;
  nodeName: string;
  seedHosts: string[];
  initialMasters: string[];
}

export const CLUSTER = 'imgpost-local';
const START_TIMEOUT_MS = 120_000;
// The nodes of a cluster start together on the same cores, and none is ready before a quorum is.
const CLUSTER_START_TIMEOUT_MS = 240_000;

export const isRoot = () => process.getuid?.() === 0;

export type Layout = ReturnType<typeof layout>;

export function layout(opts: ManagedNodeOptions = {}) {
  const home = resolveHome();
  const settings = loadDevServicesConfig().elasticsearch;
  const raw = opts.port !== undefined ? String(opts.port) : String(settings.port);
  const port = Number(raw);
  // The transport port is HTTP + 100, so the upper bound keeps both valid.
  if (!/^\d+$/.test(raw) || port < 1 || port > 65435) {
    throw new Error(`invalid port=${JSON.stringify(raw)}: must be a port number below 65436`);
  }
  const heap = opts.heap ?? settings.heap ?? DEV_SERVICE_DEFAULTS.esHeap;
  if (!/^\d+[kmgKMG]?$/.test(heap)) {
    throw new Error(`invalid heap=${JSON.stringify(heap)}: expected a JVM size such as 512m or 1g`);
  }
  const at = (...parts: string[]) => path.join(home, ...parts);
  const install = at(`elasticsearch-${MANAGED_ES_VERSION}`);
  // A node of its own keeps everything it writes in its directory; the cache's node keeps it in the cache.
  const node = opts.nodeDir === undefined ? undefined : path.resolve(opts.nodeDir);
  const own = (...parts: string[]) => (node ? path.join(node, ...parts) : at(...parts));
  return {
    home,
    node,
    install,
    zipDir: at('download'),
    zip: at('download', `elasticsearch-${MANAGED_ES_VERSION}.zip`),
    config: node ? path.join(node, 'config') : path.join(install, 'config'),
    data: own('data'),
    logs: own('logs'),
    run: own('run'),
    pidFile: own('run', 'elasticsearch.pid'),
    lockFile: own('start.lock'),
    heap,
    port,
    url: `http://127.0.0.1:${port}`,
    cluster: node ? opts.cluster : undefined,
    quickStart: opts.quickStart === true,
    startTimeoutMs: opts.cluster ? CLUSTER_START_TIMEOUT_MS : START_TIMEOUT_MS,
  };
}

/** The cache the managed nodes run from (IMGPOST_ES_HOME or its default). */
export const managedHome = () => resolveHome();

function resolveHome(): string {
  const configured = loadDevServicesConfig().elasticsearch.home;
  if (configured) return configured;
  const home = path.join(os.homedir(), '.cache', 'imgpost', 'elasticsearch');
  // As root the node runs as an unprivileged user, which cannot enter a private /root (mode 700).
  return isRoot() && unreachableAncestor(home) ? '/var/cache/imgpost/elasticsearch' : home;
}

/** The first existing ancestor directory that users other than its owner cannot traverse. */
export function unreachableAncestor(p: string): string | undefined {
  for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
    // A missing directory does not block: mkdir creates it 0755.
    if (fs.existsSync(dir) && (fs.statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}
