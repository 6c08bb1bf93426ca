import test from 'ava';
import { MANAGED_ES_VERSION } from '../../tools/dev-services/elasticsearch/distribution.ts';
import { managedNodeStatus, startManagedNode } from '../../tools/dev-services/elasticsearch/managed-node.ts';

// `npm test`'s pretest already started the node, so this normally only exercises the idempotent path.
// The node is left running: the other test files use it.

test('startManagedNode is idempotent and the node answers cluster health', async (t) => {
  // A cold start (download + unpack + boot) can take minutes when the test runs on its own.
  t.timeout(10 * 60_000);
  const first = await startManagedNode({ log: (line) => t.log(line) });
  t.true(first.running);
  t.regex(first.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const before = Date.now();
  const second = await startManagedNode();
  t.true(Date.now() - before < 15_000, 'a second start returns the running node without launching another');
  t.is(second.url, first.url);
  t.is(second.pid, first.pid);

  const status = await managedNodeStatus();
  t.true(status.running);
  t.is(status.url, first.url);
  t.is(status.version, MANAGED_ES_VERSION);
  t.truthy(status.home);

  const res = await fetch(`${first.url}/_cluster/health`);
  t.is(res.status, 200);
  const health = (await res.json()) as { status: string; number_of_nodes: number };
  t.true(['green', 'yellow'].includes(health.status), `cluster health is ${health.status}`);
  t.is(health.number_of_nodes, 1);
});

test('concurrent starts share one node', async (t) => {
  t.timeout(10 * 60_000);
  const [a, b] = await Promise.all([startManagedNode(), startManagedNode()]);
  t.is(a.url, b.url);
  t.is(a.pid, b.pid);
});
