import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { childProcessEnv, loadDevServicesConfig } from '../../../src/config.ts';
import { findJava as findJavaWithin, runTool, which, type JavaInstall } from '../shared/jvm-tools.ts';

/**
 * The Elasticsearch distribution a managed node runs from, and the tools it takes to get and run it.
 * Kept apart from the node's lifecycle (managed-node.ts) because finding a JDK and Maven, and fetching
 * and unpacking 107 MB, change for different reasons than configuring, launching and stopping a node.
 */

export const MANAGED_ES_VERSION = '8.19.21';

// Elasticsearch 8.19 supports JDK 17 through 24; a newer JDK is only a last resort.
export const JAVA_MIN = 17;
const JAVA_MAX = 24;

/** Where the distribution is cached: a zip downloaded into zipDir, unpacked to install under home. */
export interface DistributionPaths {
  home: string;
  zipDir: string;
  zip: string;
  install: string;
}

/** ES_JAVA_HOME, JAVA_HOME, the `java` on PATH, then /usr/lib/jvm (LTS 17 and 21 first). */
export function findJava(log: (line: string) => void): JavaInstall | undefined {
  const lts = (d: string) => (/(^|\D)(17|21)(\D|$)/.test(d) ? 0 : 1);
  return findJavaWithin({
    first: [loadDevServicesConfig().elasticsearch.javaHome],
    min: JAVA_MIN,
    max: JAVA_MAX,
    order: (a, b) => lts(a) - lts(b) || a.localeCompare(b),
    onUnsupported: (java) => {
      const range = `Java ${JAVA_MIN}-${JAVA_MAX}`;
      log(`warning: Elasticsearch ${MANAGED_ES_VERSION} supports ${range}; trying Java ${java.major} at ${java.home}`);
    },
  });
}

/** Idempotent; the caller must hold the cache's start lock (see managed-node.ts), as the cleanup below relies on it. */
export async function ensureInstalled(
  l: DistributionPaths,
  javaHome: string,
  mvn: string | undefined,
  log: (line: string) => void,
): Promise<void> {
  // We hold the lock, so temp dirs are leftovers of an interrupted run.
  for (const dir of [l.home, l.zipDir]) {
    const leftovers = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => /^\.(partial|unpack)-/.test(n)) : [];
    for (const name of leftovers) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  if (fs.existsSync(path.join(l.install, 'bin', 'elasticsearch'))) return;

  if (!fs.existsSync(l.zip) && mvn) {
    // Maven writes into a private directory moved into place when complete: a half download never looks finished.
    const partial = path.join(l.zipDir, `.partial-${process.pid}`);
    await fsp.mkdir(partial, { recursive: true });
    log(`downloading Elasticsearch ${MANAGED_ES_VERSION} (107 MB) from Maven Central…`);
    const t0 = Date.now();
    await runTool(
      mvn,
      [
        '-q',
        '-B',
        'dependency:copy',
        `-Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:${MANAGED_ES_VERSION}:zip`,
        `-DoutputDirectory=${partial}`,
      ],
      { cwd: partial, env: childProcessEnv({ JAVA_HOME: javaHome }) },
    );
    await fsp.rename(path.join(partial, path.basename(l.zip)), l.zip);
    await fsp.rm(partial, { recursive: true, force: true });
    log(`downloaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }

  // Unpack beside the final place, then rename: an interrupted unpack never leaves a broken install.
  const unpack = path.join(l.home, `.unpack-${process.pid}`);
  await fsp.mkdir(unpack, { recursive: true });
  log(`unpacking into ${l.install}…`);
  const jar = path.join(javaHome, 'bin', 'jar');
  const unzip = which('unzip');
  if (!unzip && !fs.existsSync(jar))
    throw new Error(`cannot unpack ${l.zip}: apt-get install unzip (or use a full JDK, which has \`jar\`)`);
  try {
    if (unzip) await runTool(unzip, ['-q', l.zip, '-d', unpack]);
    else {
      await runTool(jar, ['xf', l.zip], { cwd: unpack });
      // jar drops the executable bits that unzip would keep.
      const bin = path.join(unpack, path.basename(l.install), 'bin');
      for (const f of fs.readdirSync(bin)) fs.chmodSync(path.join(bin, f), 0o755);
    }
  } catch (err) {
    // A corrupt zip would fail the same way forever: drop it so the next run downloads again.
    fs.rmSync(l.zip, { force: true });
    fs.rmSync(unpack, { recursive: true, force: true });
    throw err;
  }
  await fsp.rename(path.join(unpack, path.basename(l.install)), l.install);
  await fsp.rm(unpack, { recursive: true, force: true });
}
