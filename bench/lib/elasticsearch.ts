/**
 * The Elasticsearch a benchmark measures: ELASTICSEARCH_URL, else the managed node, compiling fully.
 * `npm test` starts the managed node with C1 only (`imgpost es start --quick`): half the node's CPU
 * over a ten-minute suite, but slower than a node whose hot paths C2 has compiled. A benchmark that
 * finds the node so restarts it first, so no figure depends on whether the tests ran before it.
 */
import { loadConfig } from '../../src/config.ts';
import { createLogger, type LogLevel } from '../../src/log.ts';
import { resolveElasticsearchUrl } from '../../src/roles/search-parts.ts';
import { managedNodeStatus, stopManagedNode } from '../../tools/dev-services/elasticsearch/managed-node.ts';

export async function benchElasticsearchUrl(level: LogLevel = 'warn'): Promise<string> {
  const given = process.env.ELASTICSEARCH_URL;
  if (given) return given;
  const node = await managedNodeStatus();
  if (node.running && node.quickStart) {
    process.stderr.write(
      `the managed node at ${node.url} compiles with C1 only (npm test started it so): restarting it\n`,
    );
    await stopManagedNode();
  }
  return resolveElasticsearchUrl(loadConfig({}), createLogger(level));
}
