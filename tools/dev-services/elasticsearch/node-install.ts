/**
 * Getting a managed node ready to launch: the distribution installed in the cache (distribution.ts
 * fetches and unpacks it), the node's config files, and as root the unprivileged OS user it runs
 * as, owning what it writes. Process control (launch, wait, stop) is managed-node.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ensureInstalled } from './distribution.ts';
import { CLUSTER, isRoot, layout, unreachableAncestor, type Layout } from './node-layout.ts';
import { acquireLock } from './node-lock.ts';

const ES_USER = 'imgpost-es';

/** Writes the node's config files (elasticsearch.yml, heap), from the distribution's for a node of its own. */
export function configure(l: Layout): void {
  if (l.node) {
    // A config dir of its own, from the distribution's (jvm.options, log4j2.properties, …); the
    // files written for the cache's node, and its keystore, stay behind (the node creates its own).
    const own = new Set(['elasticsearch.yml', 'elasticsearch.keystore', 'jvm.options.d']);
    fs.mkdirSync(l.config, { recursive: true });
    for (const name of fs.readdirSync(path.join(l.install, 'config')).filter((n) => !own.has(n))) {
      fs.cpSync(path.join(l.install, 'config', name), path.join(l.config, name), { recursive: true });
    }
  }
  // Rewritten on every launch so a changed port, heap or home takes effect.
  const c = l.cluster;
  const list = (items: string[]) => `[${items.map((i) => JSON.stringify(i)).join(', ')}]`;
  const discovery = c
    ? [
        `cluster.name: ${c.name}`,
        `node.name: ${c.nodeName}`,
        `discovery.seed_hosts: ${list(c.seedHosts)}`,
        // Read only when the cluster first forms; ignored once its data directories hold a cluster.
        `cluster.initial_master_nodes: ${list(c.initialMasters)}`,
      ]
    : [`cluster.name: ${CLUSTER}`, `node.name: ${CLUSTER}`, 'discovery.type: single-node'];
  fs.writeFileSync(
    path.join(l.config, 'elasticsearch.yml'),
    [
      '# Written by imgpost (tools/dev-services/elasticsearch/managed-node.ts) on every start; edits are lost.',
      ...discovery,
      // Loopback only: keeps the node private and its bootstrap checks in development mode.
      'network.host: 127.0.0.1',
      `http.port: ${l.port}`,
      `transport.port: ${l.port + 100}`,
      'xpack.security.enabled: false',
      // Developer disks are often nearly full; the watermarks would make indices read-only.
      'cluster.routing.allocation.disk.threshold_enabled: false',
      // Tests clean up their indices with wildcards.
      'action.destructive_requires_name: false',
      `path.data: ${l.data}`,
      `path.logs: ${l.logs}`,
      '',
    ].join('\n'),
  );
  const optsDir = path.join(l.config, 'jvm.options.d');
  fs.mkdirSync(optsDir, { recursive: true });
  fs.writeFileSync(path.join(optsDir, 'heap.options'), `-Xms${l.heap}\n-Xmx${l.heap}\n`);
  const quick = path.join(optsDir, 'quick-start.options');
  if (l.quickStart) fs.writeFileSync(quick, `${QUICK_START_JVM_OPTIONS}\n`);
  else fs.rmSync(quick, { force: true });
}

/** A quick-start node's JVM options (node-layout.ts, quickStart): C1 only, no C2 compiler threads. */
export const QUICK_START_JVM_OPTIONS = '-XX:TieredStopAtLevel=1';

/** As root: the unprivileged account the node runs as (Elasticsearch refuses to run as root). */
function ensureUser(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, ES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    id('-u');
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ES_USER], {
      stdio: 'ignore',
    });
  }
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * As root: the user the node runs as, owning the directories the node writes to (its keystore into
 * config/, gc logs under its home, and data, logs and pid file). Otherwise nothing: the node runs
 * as the caller.
 */
export function prepareOwner(l: Layout): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  for (const dir of l.node ? [l.home, l.node] : [l.home]) {
    const blocked = unreachableAncestor(path.join(dir, 'x'));
    if (blocked)
      throw new Error(
        `${dir} is inside ${blocked}, which user ${ES_USER} cannot enter: ${l.node ? 'use a node directory outside it (mode 755)' : 'set IMGPOST_ES_HOME to a directory outside it'}`,
      );
  }
  const owner = ensureUser();
  execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, l.install, l.config, l.data, l.logs, l.run]);
  return owner;
}

/** A further node's distribution: installed under the cache's own lock, as its node would do. */
export async function ensureSharedInstall(
  l: Layout,
  javaHome: string,
  mvn: string | undefined,
  log: (line: string) => void,
): Promise<void> {
  const installed = () => fs.existsSync(path.join(l.install, 'bin', 'elasticsearch'));
  if (installed()) return;
  const cache = layout();
  await fsp.mkdir(cache.home, { recursive: true });
  const release = await acquireLock(cache, log);
  // No lock returned: the cache's node became ready meanwhile, so the distribution is there.
  if (!release) return;
  try {
    if (!installed()) await ensureInstalled(cache, javaHome, mvn, log);
  } finally {
    release();
  }
}
