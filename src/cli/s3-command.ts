import { createBucketIfMissing, s3ClientFor } from '../media-store/s3-client.ts';
import { S3PROXY_ARTIFACT, S3PROXY_VERSION } from '../../tools/dev-services/s3proxy/distribution.ts';
import { DEFAULT_S3_PORT } from '../../tools/dev-services/s3proxy/layout.ts';
import {
  managedS3Status,
  mediaStoreEnv,
  startManagedS3,
  stopManagedS3,
  type ManagedS3Status,
} from '../../tools/dev-services/s3proxy/managed-s3.ts';

const USAGE = `Usage: imgpost s3 <command> [--json]

Runs a local S3 server (S3Proxy ${S3PROXY_VERSION}, filesystem backend) for development and tests, as
\`imgpost es\` runs Elasticsearch. The first start fetches ${S3PROXY_ARTIFACT}
from Maven Central with Maven (needs a Java 17+ JDK and Maven) into a cache outside the repo.

Commands:
  start [--bucket NAME] [--port P] [--cors]
           start the server unless it already runs, and create the bucket (default imgpost);
           prints the settings that point the service at it (MEDIA_STORE, S3_*), one per line,
           ready for \`export\` or an env file (progress on stderr). --cors lets browsers on any
           origin use it (direct uploads from a page in development; applies when it starts)
  stop     stop the server started from the cache; its data stays
  status   print whether it runs, where, and its credentials

Options:
  --json   print the status as JSON (start, status)

Environment:
  IMGPOST_S3_HOME   cache, data (<home>/data/<bucket>/...), logs and credentials
                    (default ~/.cache/imgpost/s3proxy)
  IMGPOST_S3_PORT   port on 127.0.0.1 (default ${DEFAULT_S3_PORT})
  IMGPOST_S3_HEAP   JVM heap, such as 512m (default 256m)
`;

const progress = (line: string) => process.stderr.write(`${line}\n`);

interface Parsed {
  command: string;
  json: boolean;
  bucket: string;
  port?: number;
  cors: boolean;
}

function parse(args: string[]): Parsed {
  const [command, ...rest] = args;
  if (!['start', 'stop', 'status'].includes(command ?? '')) throw new Error(`unknown arguments: ${args.join(' ')}`);
  const parsed: Parsed = { command: command!, json: false, bucket: 'imgpost', cors: false };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const value = () => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--json' && command !== 'stop') parsed.json = true;
    else if (flag === '--bucket' && command === 'start') parsed.bucket = value();
    else if (flag === '--port' && command === 'start') {
      const v = value();
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new Error(`--port ${v}: must be a port number`);
      parsed.port = Number(v);
    } else if (flag === '--cors' && command === 'start') parsed.cors = true;
    else throw new Error(`unknown arguments: ${args.join(' ')}`);
  }
  // S3 bucket names: 3-63 lower-case letters, digits, dots and hyphens.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(parsed.bucket))
    throw new Error(`--bucket ${parsed.bucket}: not a valid bucket name (3-63 of a-z, 0-9, '.', '-')`);
  return parsed;
}

function printStatus(status: ManagedS3Status, json: boolean, bucket?: string): void {
  const env = bucket ? mediaStoreEnv(status, bucket) : undefined;
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...status, ...(bucket ? { bucket, env } : {}) }, null, 2)}\n`);
    return;
  }
  if (env) {
    process.stdout.write(
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    return;
  }
  const lines = [
    `S3Proxy ${status.version}: ${status.running ? `running on ${status.endpoint} (pid ${status.pid})` : `not running (port ${status.port})`}`,
    `data:        ${status.dataDir}`,
    `log:         ${status.logFile}`,
    ...(status.accessKeyId
      ? [`credentials: S3_ACCESS_KEY_ID=${status.accessKeyId} S3_SECRET_ACCESS_KEY=${status.secretAccessKey}`]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export async function run(args: string[]): Promise<number> {
  if (args[0] === 'help' || args.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  let p: Parsed;
  try {
    p = parse(args);
  } catch (err) {
    process.stderr.write(args.length === 0 ? USAGE : `imgpost s3: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  switch (p.command) {
    case 'start': {
      const status = await startManagedS3({ port: p.port, corsAllowAll: p.cors, log: progress });
      const client = s3ClientFor({
        endpoint: status.endpoint,
        region: status.region,
        forcePathStyle: true,
        accessKeyId: status.accessKeyId,
        secretAccessKey: status.secretAccessKey,
      });
      try {
        if (await createBucketIfMissing(client, p.bucket)) progress(`created bucket ${p.bucket}`);
      } finally {
        client.destroy();
      }
      printStatus(status, p.json, p.bucket);
      return 0;
    }
    case 'stop': {
      const before = await managedS3Status();
      const stopped = await stopManagedS3();
      progress(stopped ? `stopped S3Proxy on ${before.endpoint}` : 'no managed S3Proxy was running');
      return 0;
    }
    default: {
      printStatus(await managedS3Status(), p.json);
      return 0;
    }
  }
}
