import { MANAGED_ES_VERSION } from '../elasticsearch/distribution.ts';
import { managedNodeStatus, startManagedNode, stopManagedNode } from '../elasticsearch/managed-node.ts';

const USAGE = `Usage: imgpost es <command>

Runs a local Elasticsearch ${MANAGED_ES_VERSION} node for development and tests, without Docker.
The first start fetches it with Maven (needs a Java 17+ JDK and Maven) into a cache outside the repo.

Commands:
  start    start the node unless one already answers; prints its URL (progress on stderr)
  stop     stop the node started from this cache
  status   print the node's status as JSON (always; --json is accepted for scripts)

Environment:
  IMGPOST_ES_HOME   cache, data and logs (default ~/.cache/imgpost/elasticsearch,
                    or /var/cache/imgpost/elasticsearch as root when ~ is private)
  IMGPOST_ES_PORT   HTTP port (default 9277; the transport port is this + 100)
  IMGPOST_ES_HEAP   JVM heap, such as 1g (default 512m)
`;

const progress = (line: string) => process.stderr.write(`${line}\n`);

export async function run(args: string[]): Promise<number> {
  const [command, ...more] = args;
  // `status` always prints JSON; --json is accepted so scripts can pass it to every command alike.
  const rest = command === 'status' ? more.filter((a) => a !== '--json') : more;
  // `es --help` and `es start --help` alike.
  if (command === 'help' || args.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (rest.length > 0 || !['start', 'stop', 'status'].includes(command ?? '')) {
    process.stderr.write(command === undefined ? USAGE : `imgpost es: unknown arguments: ${args.join(' ')}\n\n${USAGE}`);
    return 2;
  }
  switch (command) {
    case 'start': {
      const node = await startManagedNode({ log: progress });
      process.stdout.write(`${node.url}\n`);
      return 0;
    }
    case 'stop': {
      const before = await managedNodeStatus();
      await stopManagedNode();
      const after = await managedNodeStatus();
      if (after.running) progress(`${after.url} still answers: it is not the node from ${after.home}, so it was left alone`);
      else progress(before.running || before.pid ? `stopped Elasticsearch on ${before.url}` : 'no managed Elasticsearch node was running');
      return 0;
    }
    default: {
      process.stdout.write(`${JSON.stringify(await managedNodeStatus(), null, 2)}\n`);
      return 0;
    }
  }
}
