import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEV_SERVICE_DEFAULTS, loadDevServicesConfig } from '../../../src/config.ts';
import { readText } from '../shared/jvm-tools.ts';
import { s3Home } from './distribution.ts';

/**
 * Where a managed S3Proxy (managed-s3.ts) keeps its files, its credentials and its configuration: its
 * directory's layout, the credentials generated once per directory, and the properties file written on
 * every start.
 */

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface ManagedS3Options {
  /** Where properties, data, logs, pid file and credentials live (default: the cache, IMGPOST_S3_HOME). */
  dir?: string;
  /** Default IMGPOST_S3_PORT, else 9390. */
  port?: number;
  /** JVM heap, default IMGPOST_S3_HEAP, else 256m. */
  heap?: string;
  /** Fixed credentials instead of the ones generated into `<dir>/credentials.json`. */
  credentials?: S3Credentials;
  /** Lets browsers on any origin call it (direct uploads from the gallery in development). */
  corsAllowAll?: boolean;
  log?: (line: string) => void;
}

export const DEFAULT_S3_PORT = DEV_SERVICE_DEFAULTS.s3Port;

export type Layout = ReturnType<typeof layout>;

export function layout(opts: ManagedS3Options = {}) {
  const dir = path.resolve(opts.dir ?? s3Home());
  // Without a port given, the one this directory last started on (so `status` and `stop` find a
  // server started with `--port`), else IMGPOST_S3_PORT, else the default.
  const settings = loadDevServicesConfig().s3proxy;
  const raw = String(opts.port ?? settings.port ?? savedPort(dir) ?? DEFAULT_S3_PORT);
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new Error(`invalid port=${JSON.stringify(raw)}: must be a port number`);
  }
  const heap = opts.heap ?? settings.heap;
  if (!/^\d+[kmgKMG]?$/.test(heap)) {
    throw new Error(`invalid heap=${JSON.stringify(heap)}: expected a JVM size such as 256m`);
  }
  const at = (...parts: string[]) => path.join(dir, ...parts);
  return {
    dir,
    port,
    heap,
    endpoint: `http://127.0.0.1:${port}`,
    data: at('data'),
    logs: at('logs'),
    logFile: at('logs', 's3proxy.log'),
    run: at('run'),
    pidFile: at('run', 's3proxy.pid'),
    lockFile: at('start.lock'),
    properties: at('s3proxy.properties'),
    credentialsFile: at('credentials.json'),
    corsAllowAll: !!opts.corsAllowAll,
    fixedCredentials: opts.credentials,
  };
}
export function savedPort(dir: string): string | undefined {
  return /^s3proxy\.endpoint=http:\/\/127\.0\.0\.1:(\d+)$/m.exec(
    readText(path.join(dir, 's3proxy.properties')) ?? '',
  )?.[1];
}

/** The directory's credentials: given, saved, or generated now and saved (mode 600). */
export function credentialsOf(l: Layout, create: boolean): S3Credentials | undefined {
  if (l.fixedCredentials) return l.fixedCredentials;
  try {
    const saved = JSON.parse(fs.readFileSync(l.credentialsFile, 'utf8')) as Partial<S3Credentials>;
    if (saved.accessKeyId && saved.secretAccessKey)
      return { accessKeyId: saved.accessKeyId, secretAccessKey: saved.secretAccessKey };
  } catch {
    /* none yet */
  }
  if (!create) return undefined;
  const made = {
    accessKeyId: `imgpost-${randomBytes(6).toString('hex')}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  fs.mkdirSync(l.dir, { recursive: true });
  fs.writeFileSync(l.credentialsFile, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600 });
  return made;
}
export function configure(l: Layout, creds: S3Credentials): void {
  const escape = (v: string) => v.replace(/\\/g, '\\\\');
  const lines = [
    '# Written by imgpost (tools/dev-services/s3proxy/managed-s3.ts) on every start; edits are lost.',
    `s3proxy.endpoint=${l.endpoint}`,
    's3proxy.authorization=aws-v2-or-v4',
    `s3proxy.identity=${creds.accessKeyId}`,
    `s3proxy.credential=${escape(creds.secretAccessKey)}`,
    ...(l.corsAllowAll ? ['s3proxy.cors-allow-all=true'] : []),
    'jclouds.provider=filesystem',
    `jclouds.filesystem.basedir=${escape(l.data)}`,
    '',
  ];
  fs.writeFileSync(l.properties, lines.join('\n'), { mode: 0o600 });
}
