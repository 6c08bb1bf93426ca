import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadDevServicesConfig } from '../../../src/config.ts';

/**
 * What the managed Java services (the Elasticsearch node, S3Proxy) need to find and fetch: Java,
 * Maven, and a way to run a tool with its output kept for the error. Where to look (PATH,
 * JAVA_HOME, MAVEN_HOME, ...) comes from the configuration (src/config/settings.ts).
 */

export const readText = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};
export const lastLines = (text: string, n: number) =>
  text
    .split('\n')
    .filter((s) => !!s.trim())
    .slice(-n);

export function which(cmd: string): string | undefined {
  const executable = (f: string) => {
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return fs.statSync(f).isFile();
    } catch {
      return false;
    }
  };
  const dirs = loadDevServicesConfig().tools.path.split(path.delimiter);
  return dirs.map((dir) => path.join(dir || '.', cmd)).find(executable);
}

export function javaMajor(home: string): number | undefined {
  const java = path.join(home, 'bin', 'java');
  if (!fs.existsSync(java)) return undefined;
  const parse = (m: RegExpExecArray | null) => (m ? Number(m[1] === '1' ? m[2] : m[1]) : undefined);
  // The JDK's release file is instant; `java -version` (the fallback) starts a JVM.
  return (
    parse(/JAVA_VERSION="(\d+)(?:\.(\d+))?/.exec(readText(path.join(home, 'release')) ?? '')) ??
    parse(/version "(\d+)(?:\.(\d+))?/.exec(spawnSync(java, ['-version'], { encoding: 'utf8' }).stderr ?? ''))
  );
}

export interface JavaInstall {
  home: string;
  major: number;
  bin: string;
}

export interface JavaWanted {
  /** Homes to try first, in order (ES_JAVA_HOME, ...); JAVA_HOME, the `java` on PATH and /usr/lib/jvm follow. */
  first?: (string | undefined)[];
  min: number;
  /** The newest supported; a newer Java is used only when there is no other, after `onUnsupported`. */
  max?: number;
  /** How to order the JDKs under /usr/lib/jvm (default: by name). */
  order?: (a: string, b: string) => number;
  onUnsupported?: (java: JavaInstall) => void;
}

/** The first Java in the candidates whose version is within the bounds. */
export function findJava(wanted: JavaWanted): JavaInstall | undefined {
  const candidates = [...(wanted.first ?? []), loadDevServicesConfig().tools.javaHome];
  const onPath = which('java');
  if (onPath) candidates.push(path.dirname(path.dirname(fs.realpathSync(onPath))));
  if (fs.existsSync('/usr/lib/jvm')) {
    candidates.push(
      ...fs
        .readdirSync('/usr/lib/jvm')
        .sort(wanted.order)
        .map((d) => path.join('/usr/lib/jvm', d)),
    );
  }
  let newer: JavaInstall | undefined;
  for (const home of new Set(candidates.filter((c): c is string => !!c))) {
    const major = javaMajor(home) ?? 0;
    if (major < wanted.min) continue;
    const java = { home, major, bin: path.join(home, 'bin', 'java') };
    if (wanted.max === undefined || major <= wanted.max) return java;
    newer ??= java;
  }
  if (newer) wanted.onUnsupported?.(newer);
  return newer;
}

export function findMaven(): string | undefined {
  const { mavenHome, m2Home } = loadDevServicesConfig().tools;
  const fromHome = [mavenHome, m2Home].filter((h): h is string => !!h).map((h) => path.join(h, 'bin', 'mvn'));
  return which('mvn') ?? fromHome.find((f) => fs.existsSync(f));
}

/** Runs a command to completion; on failure the error carries the end of its output. */
export function runTool(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (b: Buffer) => {
      out = (out + b.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) return resolve();
      const what = `${path.basename(cmd)} ${args.find((a) => a.includes(':')) ?? args[0]}`;
      reject(new Error(`${what} failed (exit ${code}): ${lastLines(out, 10).join(' | ')}`));
    });
  });
}
