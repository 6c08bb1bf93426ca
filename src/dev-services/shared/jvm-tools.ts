import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * What the managed Java services (the Elasticsearch node, S3Proxy) need to find and fetch: Java,
 * Maven, and a way to run a tool with its output kept for the error.
 */

export const readText = (file: string) => { try { return fs.readFileSync(file, 'utf8'); } catch { return undefined; } };
export const lastLines = (text: string, n: number) => text.split('\n').filter((s) => s.trim()).slice(-n);

/** The search path and Maven homes come from the caller's configuration (loadDevServicesConfig). */
export interface ToolPaths { path?: string; mavenHome?: string; m2Home?: string }

export function which(cmd: string, tools: ToolPaths): string | undefined {
  const executable = (f: string) => { try { fs.accessSync(f, fs.constants.X_OK); return fs.statSync(f).isFile(); } catch { return false; } };
  return (tools.path ?? '').split(path.delimiter).map((dir) => path.join(dir || '.', cmd)).find(executable);
}

export function javaMajor(home: string): number | undefined {
  const java = path.join(home, 'bin', 'java');
  if (!fs.existsSync(java)) return undefined;
  const parse = (m: RegExpExecArray | null) => (m ? Number(m[1] === '1' ? m[2] : m[1]) : undefined);
  // The JDK's release file is instant; `java -version` (the fallback) starts a JVM.
  return parse(/JAVA_VERSION="(\d+)(?:\.(\d+))?/.exec(readText(path.join(home, 'release')) ?? '')) ?? parse(/version "(\d+)(?:\.(\d+))?/.exec(spawnSync(java, ['-version'], { encoding: 'utf8' }).stderr ?? ''));
}

export function findMaven(tools: ToolPaths): string | undefined {
  const fromHome = [tools.mavenHome, tools.m2Home].filter(Boolean).map((h) => path.join(h!, 'bin', 'mvn'));
  return which('mvn', tools) ?? fromHome.find((f) => fs.existsSync(f));
}

/** Runs a command to completion; on failure the error carries the end of its output. */
export function runTool(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (b: Buffer) => { out = (out + b.toString()).slice(-4000); };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(cmd)} ${args.find((a) => a.includes(':')) ?? args[0]} failed (exit ${code}): ${lastLines(out, 10).join(' | ')}`)));
  });
}
