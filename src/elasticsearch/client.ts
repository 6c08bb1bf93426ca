import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import type { Client } from '@elastic/elasticsearch';
import type { Config } from '../config.ts';

export type EsClient = Client;

// The client library is loaded when the first client is made (or an error is classified), not at
// import: it is about a third of a CLI process's start-up, and the commands that touch only SQLite
// (user, tag, media status, the --help of every command) never need it. The suite starts hundreds.
type EsModule = typeof import('@elastic/elasticsearch');
const load = createRequire(import.meta.url);
let esModule: EsModule | undefined;
const library = (): EsModule => {
  if (!esModule) {
    deferArrow();
    esModule = load('@elastic/elasticsearch') as EsModule;
  }
  return esModule;
};

/**
 * The client's helpers require apache-arrow as they load, for the ES|QL Arrow helpers alone: a third of
 * the modules and the largest single share of the CPU of loading the library, in every process that makes
 * a client (each test file, each CLI command). Nothing here uses those helpers (clients from 9.0 on load
 * it on first use). Its place in the module cache is taken by a stand-in that loads it at the first
 * property read, which is all the helpers do with it (`Arrow_node_1.tableFromIPC(…)` at call time).
 */
function deferArrow(): void {
  const fromClient = createRequire(load.resolve('@elastic/elasticsearch'));
  let file: string;
  try {
    file = fromClient.resolve('apache-arrow/Arrow.node');
  } catch {
    return; // a client without it: nothing to defer
  }
  if (fromClient.cache[file]) return;
  let arrow: Record<string | symbol, unknown> | undefined;
  const real = () => {
    if (!arrow) {
      delete fromClient.cache[file];
      arrow = fromClient(file) as Record<string | symbol, unknown>;
    }
    return arrow;
  };
  const standIn = new Module(file);
  standIn.filename = file;
  standIn.loaded = true;
  standIn.exports = new Proxy({}, { get: (_target, key) => real()[key] });
  fromClient.cache[file] = standIn;
}

/** The client library's error classes. */
export const esErrors = (): EsModule['errors'] => library().errors;

export function createEsClient(
  es: Omit<Config['elasticsearch'], 'replicas'> & { url: string },
  opts: { requestTimeout?: number } = {},
): EsClient {
  const nodes = es.url.split(',');
  const { Client, ClusterConnectionPool } = library();
  return new Client({
    nodes,
    // With several nodes, one that fails is left out (and pinged again after a minute) instead of
    // being tried again at once by the default weighted pool, so a dead node costs one retry, not one per request.
    ...(nodes.length > 1 ? { ConnectionPool: ClusterConnectionPool } : {}),
    auth: es.apiKey
      ? { apiKey: es.apiKey }
      : es.username && es.password
        ? { username: es.username, password: es.password }
        : undefined,
    tls: es.caCert ? { ca: fs.readFileSync(es.caCert) } : undefined,
    requestTimeout: opts.requestTimeout ?? 10_000,
    // The relay does its own retrying with backoff; a quick failure lets it answer 503 promptly.
    // One retry goes to another node, which is what survives a node that died mid-request.
    maxRetries: 1,
  });
}

/** True when the error means "Elasticsearch could not be reached", as opposed to a request it refused. */
export function isConnectionError(err: unknown): boolean {
  const errors = esErrors();
  return (
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError ||
    (err instanceof errors.ResponseError && [502, 503, 504].includes(err.statusCode ?? 0))
  );
}

export type HealthStatus = 'green' | 'yellow' | 'red';

/**
 * The cluster's status, the posts index's own, and whether the posts index can serve: every shard
 * has an active copy. That is more than "not red": for the moment between losing a primary's node
 * and promoting its replica (longer when the elected master died with it) the index is red, yet
 * searches are answered from the replica and writes wait for the promotion (or go to the relay).
 * A cluster is red when any index lacks a primary (another prefix's index, say), which does not
 * concern the service. Statuses are undefined when Elasticsearch does not answer (or the alias does
 * not exist yet).
 */
export async function postsHealth(
  client: EsClient,
  alias: string,
): Promise<{ cluster?: HealthStatus; index?: HealthStatus; serving: boolean; nodes?: number }> {
  const opts = { requestTimeout: 3000, maxRetries: 1 };
  // local: the answering node's own view of the cluster, at once, even while a new master is being
  // elected (searches still work then). timeout 0s: a missing index answers 408 at once, not after 30 s.
  const ask = (index?: string) =>
    client.cluster
      .health({ index, local: true, timeout: '0s', ...(index ? { level: 'shards' as const } : {}) }, opts)
      .catch(() => undefined);
  const [cluster, index] = await Promise.all([ask(), ask(alias)]);
  const status = (h: typeof cluster) => h?.status.toLowerCase() as HealthStatus | undefined;
  const shards = Object.values(index?.indices ?? {}).flatMap((i) => Object.values(i.shards ?? {}));
  const serving = shards.length > 0 && shards.every((s) => s.active_shards > 0);
  return { cluster: status(cluster), index: status(index), serving, nodes: cluster?.number_of_nodes };
}
