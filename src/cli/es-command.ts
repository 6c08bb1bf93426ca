import { MANAGED_ES_VERSION } from '../../tools/dev-services/elasticsearch/distribution.ts';
import {
  DEFAULT_CLUSTER_PORT,
  localCluster,
  managedClusterStatus,
  savedLocalCluster,
  startManagedCluster,
  stopManagedCluster,
} from '../../tools/dev-services/elasticsearch/managed-cluster.ts';
import {
  managedNodeStatus,
  startManagedNode,
  stopManagedNode,
} from '../../tools/dev-services/elasticsearch/managed-node.ts';

const USAGE = `Usage: imgpost es <command>

Runs a local Elasticsearch ${MANAGED_ES_VERSION} node for development and tests, without Docker.
The first start fetches it with Maven (needs a Java 17+ JDK and Maven) into a cache outside the repo.

Commands:
  start    start the node unless one already answers; prints its URL (progress on stderr)
  start --quick
           the same, its JVM compiling with C1 only: about half the node's CPU over a
           test run of minutes (\`npm test\` starts it so), below full speed in a long
           one; a node that already answers is kept as it runs (\`es status\` says which)
  start --nodes N [--port P]
           start a local cluster of N (2-9) nodes instead, on HTTP ports P … P+N-1 (default
           ${DEFAULT_CLUSTER_PORT}), each with its own directory under the cache; prints the nodes' URLs
           comma-separated, ready for ELASTICSEARCH_URL
  stop     stop the node started from this cache, and the local cluster if one was started
  status   print the node's status as JSON, with the local cluster's under "cluster" if one was
           started (always JSON; --json is accepted for scripts)

Environment:
  IMGPOST_ES_HOME   cache, data and logs (default ~/.cache/imgpost/elasticsearch,
                    or /var/cache/imgpost/elasticsearch as root when ~ is private)
  IMGPOST_ES_PORT   HTTP port (default 9277; the transport port is this + 100)
  IMGPOST_ES_HEAP   JVM heap, such as 1g (default 512m; 384m for each node of a cluster)
`;

const progress = (line: string) => process.stderr.write(`${line}\n`);

/** `--nodes N --port P` of `es start`, or undefined for a single node; throws on anything else. */
function clusterArgs(args: string[]): { nodes: number; port: number } | undefined {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (!['--nodes', '--port'].includes(flag) || value === undefined || values.has(flag))
      throw new Error(`unknown arguments: ${args.join(' ')}`);
    values.set(flag, value);
  }
  if (values.size === 0) return undefined;
  if (!values.has('--nodes')) throw new Error('--port needs --nodes');
  const num = (flag: string, fallback: number) =>
    values.has(flag) ? (/^\d+$/.test(values.get(flag)!) ? Number(values.get(flag)) : NaN) : fallback;
  return { nodes: num('--nodes', 0), port: num('--port', DEFAULT_CLUSTER_PORT) };
}

export async function run(args: string[]): Promise<number> {
  const [command, ...more] = args;
  // `status` always prints JSON; --json is accepted so scripts can pass it to every command alike.
  const rest = command === 'status' ? more.filter((a) => a !== '--json') : more;
  // `es --help` and `es start --help` alike.
  if (command === 'help' || args.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  let cluster: ReturnType<typeof clusterArgs>;
  // `--quick` once, for one node; what is left is --nodes/--port or nothing.
  const quick = command === 'start' && rest.includes('--quick');
  const shape = rest.filter((a) => a !== '--quick');
  try {
    if (!['start', 'stop', 'status'].includes(command ?? '') || (command !== 'start' && rest.length > 0))
      throw new Error(`unknown arguments: ${args.join(' ')}`);
    if (quick && rest.length - shape.length > 1) throw new Error(`unknown arguments: ${args.join(' ')}`);
    cluster = command === 'start' ? clusterArgs(shape) : undefined;
    if (quick && cluster) throw new Error('--quick is for one node, not a local cluster');
  } catch (err) {
    process.stderr.write(command === undefined ? USAGE : `imgpost es: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  switch (command) {
    case 'start': {
      if (cluster) {
        let spec;
        try {
          spec = localCluster(cluster.nodes, cluster.port);
        } catch (err) {
          process.stderr.write(`imgpost es: ${(err as Error).message}\n`);
          return 2;
        }
        const status = await startManagedCluster(spec, progress);
        progress(`cluster ${status.name}: ${status.joined} nodes, ${status.status}`);
        process.stdout.write(`${status.url}\n`);
        return 0;
      }
      const node = await startManagedNode({ log: progress, quickStart: quick });
      if (node.quickStart !== undefined && node.quickStart !== quick)
        progress(`the node already answering compiles ${node.quickStart ? 'with C1 only' : 'fully'}; kept as it is`);
      process.stdout.write(`${node.url}\n`);
      return 0;
    }
    case 'stop': {
      const before = await managedNodeStatus();
      await stopManagedNode();
      const after = await managedNodeStatus();
      if (after.running)
        progress(`${after.url} still answers: it is not the node from ${after.home}, so it was left alone`);
      else
        progress(
          before.running || before.pid
            ? `stopped Elasticsearch on ${before.url}`
            : 'no managed Elasticsearch node was running',
        );
      const spec = savedLocalCluster();
      if (spec) {
        const running = (await managedClusterStatus(spec)).nodes.filter((n) => n.running || n.pid).length;
        await stopManagedCluster(spec);
        progress(
          running
            ? `stopped ${running} node(s) of the local cluster ${spec.name}`
            : `the local cluster ${spec.name} was not running`,
        );
      }
      return 0;
    }
    default: {
      const spec = savedLocalCluster();
      const status = { ...(await managedNodeStatus()), ...(spec ? { cluster: await managedClusterStatus(spec) } : {}) };
      process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      return 0;
    }
  }
}
