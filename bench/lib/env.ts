import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A command line as it is written down: absolute paths of the box it ran on become DIR. */
export function scrubPaths(command: string): string {
  return command.replace(/(^|[\s='"(])\/(?:[\w.+-]+\/)*[\w.+-]+/g, '$1DIR');
}

/** A fresh directory under os.tmpdir(); the run removes it when it ends. */
export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `imgpost-bench-${label}-`));
}

/**
 * Rate limits would throttle the load generator rather than measure the service. Settings named
 * RATE_LIMIT_* may be added to the configuration later, so they are discovered from its source and all
 * set to 0 (disabled) instead of being hard-coded here.
 */
export function rateLimitOverrides(): Record<string, string> {
  // Declared in src/config/ (settings.ts and its siblings), read by src/config.ts: every file is searched.
  const dir = path.join(ROOT, 'src/config');
  const files = [path.join(ROOT, 'src/config.ts'), ...fs.readdirSync(dir).map((f) => path.join(dir, f))];
  const source = files
    .filter((f) => f.endsWith('.ts'))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  const names = new Set(source.match(/\bRATE_LIMIT_[A-Z0-9_]+\b/g) ?? []);
  return Object.fromEntries([...names].map((n) => [n, '0']));
}

/** The environment both the in-process services and the child server are configured from. */
export function benchEnv(o: {
  dataDir: string;
  prefix: string;
  esUrl: string;
  logLevel?: string;
}): Record<string, string> {
  return {
    DATA_DIR: o.dataDir,
    ELASTICSEARCH_URL: o.esUrl,
    ELASTICSEARCH_INDEX_PREFIX: o.prefix,
    HOST: '127.0.0.1',
    PORT: '0',
    // The figures are for 2 cores: pin the pool rather than follow whatever the box reports.
    HASH_WORKERS: '2',
    LOG_LEVEL: o.logLevel ?? 'warn',
    ...rateLimitOverrides(),
  };
}

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  os: string;
  node: string;
  sharp: string;
  libvips: string;
  elasticsearch: string;
  elasticsearchHeap: string;
  commit: string;
  /** 1-minute load average when the run started: other work on the box shows up here */
  loadAverage: number[];
}

async function esNodeInfo(esUrl: string): Promise<{ version: string; heap: string }> {
  try {
    const res = await fetch(`${esUrl}/_nodes/_local/jvm?filter_path=nodes.*.version,nodes.*.jvm.mem.heap_max_in_bytes`);
    const body = (await res.json()) as {
      nodes?: Record<string, { version?: string; jvm?: { mem?: { heap_max_in_bytes?: number } } }>;
    };
    const node = Object.values(body.nodes ?? {})[0];
    const heap = node?.jvm?.mem?.heap_max_in_bytes;
    return { version: node?.version ?? 'unknown', heap: heap ? `${Math.round(heap / 2 ** 20)} MiB` : 'unknown' };
  } catch {
    return { version: 'unreachable', heap: 'unknown' };
  }
}

export function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'workers', 'es-mappings'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} (+ uncommitted changes in src/)` : head;
  } catch {
    return 'unknown';
  }
}

export async function machineInfo(esUrl: string): Promise<Machine> {
  const cpus = os.cpus();
  const es = await esNodeInfo(esUrl);
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sharp: sharp.versions.sharp ?? 'unknown',
    libvips: sharp.versions.vips,
    elasticsearch: es.version,
    elasticsearchHeap: es.heap,
    commit: gitCommit(),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}
