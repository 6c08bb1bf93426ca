import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childProcessEnv, loadDevServicesConfig } from '../../../src/config.ts';
import { findJava as findJavaWithin, findMaven, runTool, type JavaInstall } from '../shared/jvm-tools.ts';
import { acquireFileLock } from '../shared/processes.ts';

/**
 * The S3 server the project runs for tests and local use (issue 26): S3Proxy from Maven Central,
 * the self-contained jar (`jar-with-dependencies` classifier, 55 MB, Main-Class org.gaul.s3proxy.Main,
 * Java 17+), fetched with `mvn dependency:copy` into a cache outside the repo, as the managed
 * Elasticsearch node's distribution is. Kept apart from an instance's lifecycle (managed-s3.ts).
 *
 * Finding Java and Maven, and the download lock, are ../shared's, as the Elasticsearch node's are.
 */

export const S3PROXY_VERSION = '4.1.0';
/** groupId:artifactId:version:packaging:classifier, as `mvn dependency:copy -Dartifact=` takes it. */
export const S3PROXY_ARTIFACT = `org.gaul:s3proxy:${S3PROXY_VERSION}:jar:jar-with-dependencies`;
export const S3PROXY_JAR = `s3proxy-${S3PROXY_VERSION}-jar-with-dependencies.jar`;
export const S3PROXY_JAVA_MIN = 17;

export const INSTALL_HINT = 'apt-get install openjdk-17-jdk-headless maven';

// A first run downloads 55 MB while holding the lock, so waiters must be patient.
const DOWNLOAD_LOCK_WAIT_MS = 15 * 60_000;

/** The cache: IMGPOST_S3_HOME, else ~/.cache/imgpost/s3proxy (S3Proxy runs as whoever starts it, root included). */
export function s3Home(): string {
  const home = loadDevServicesConfig().s3proxy.home;
  if (home) return home;
  return path.join(os.homedir(), '.cache', 'imgpost', 's3proxy');
}

export const jarPath = (home = s3Home()) => path.join(home, 'download', S3PROXY_JAR);

/** JAVA_HOME, the `java` on PATH, then /usr/lib/jvm: the first Java 17 or newer (S3Proxy has no upper bound). */
export const findJava = (): JavaInstall | undefined => findJavaWithin({ min: S3PROXY_JAVA_MIN });

/** A complete jar: a zip whose end-of-central-directory record is there (a cut download lacks it). */
function looksComplete(jar: string): boolean {
  try {
    const size = fs.statSync(jar).size;
    if (size < 1024 * 1024) return false;
    const fd = fs.openSync(jar, 'r');
    try {
      const tail = Buffer.alloc(Math.min(size, 65_557));
      fs.readSync(fd, tail, 0, tail.length, size - tail.length);
      return tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) >= 0;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * The jar's path, downloading it first if the cache lacks it: `mvn -q -B dependency:copy
 * -Dartifact=org.gaul:s3proxy:<version>:jar:jar-with-dependencies -DoutputDirectory=<partial dir>`
 * (Maven checks the repository's checksums and keeps a copy in ~/.m2), then a rename into place,
 * so a half download never looks finished. Idempotent and safe to call from several processes at once.
 */
export async function ensureJar(opts: { home?: string; log?: (line: string) => void } = {}): Promise<string> {
  const home = opts.home ?? s3Home();
  const log = opts.log ?? (() => {});
  const jar = jarPath(home);
  if (looksComplete(jar)) return jar;
  const dir = path.dirname(jar);
  await fsp.mkdir(dir, { recursive: true });
  const release = await acquireFileLock(path.join(dir, 'download.lock'), {
    waitMs: DOWNLOAD_LOCK_WAIT_MS,
    onWait: (holder) => log(`another process (pid ${holder ?? '?'}) is downloading S3Proxy; waiting for it…`),
    done: () => looksComplete(jar),
  });
  if (!release) return jar;
  try {
    if (looksComplete(jar)) return jar;
    // We hold the lock, so partial directories are leftovers of an interrupted run.
    for (const name of fs.readdirSync(dir).filter((n) => n.startsWith('.partial-')))
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    fs.rmSync(jar, { force: true });
    const java = findJava();
    const mvn = findMaven();
    if (!java || !mvn) {
      throw new Error(
        `S3Proxy needs ${[!java && `a Java ${S3PROXY_JAVA_MIN}+ JDK`, !mvn && 'Maven'].filter(Boolean).join(' and ')} to be fetched and run locally: ${INSTALL_HINT}`,
      );
    }
    const partial = path.join(dir, `.partial-${process.pid}`);
    await fsp.mkdir(partial, { recursive: true });
    log(`downloading S3Proxy ${S3PROXY_VERSION} (55 MB) from Maven Central…`);
    const t0 = Date.now();
    try {
      await runTool(
        mvn,
        ['-q', '-B', 'dependency:copy', `-Dartifact=${S3PROXY_ARTIFACT}`, `-DoutputDirectory=${partial}`],
        { cwd: partial, env: childProcessEnv({ JAVA_HOME: java.home }) },
      );
      const got = path.join(partial, S3PROXY_JAR);
      if (!looksComplete(got)) throw new Error(`mvn dependency:copy left no complete ${S3PROXY_JAR} in ${partial}`);
      await fsp.rename(got, jar);
    } finally {
      await fsp.rm(partial, { recursive: true, force: true });
    }
    log(`downloaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return jar;
  } finally {
    release();
  }
}
