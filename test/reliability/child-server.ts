/**
 * The real server and CLI as child processes (the compiled JavaScript, test/helpers/compiled.ts), as they run in
 * production.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { promisify } from 'node:util';
import type { ExecutionContext } from 'ava';
import { childRecorderArgs } from '../ecosystem/response-recorder.ts';
import { deleteTestIndices, tempDir, uniquePrefix } from '../helpers/app.ts';
import { TEST_PASSWORD_HASH_COST } from '../helpers/users.ts';
import { SERVER_JS, CLI_JS } from '../helpers/compiled.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ChildServer {
  url: string;
  pid: number;
  /**
   * stderr so far (the server logs JSON lines there): every line but the per-request access log,
   * which keeps only its latest lines (see keepLog).
   */
  output(): string;
  /** SIGKILL: no shutdown hook runs, nothing is flushed */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** As in test/helpers/app.ts: robust descriptors only where a test asks for them, cheap password hashes. */
const CHILD_DEFAULTS = { ROBUST_DESCRIPTORS: '0', PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST };

/**
 * Starts `src/main.ts` on `env.PORT` and resolves once /healthz answers. Under IMGPOST_RECORD_RESPONSES
 * (as `npm test` runs) the child records its responses too, for the OpenAPI check.
 */
export async function startChild(env: Record<string, string>, timeoutMs = 60_000): Promise<ChildServer> {
  const recorder = childRecorderArgs({ ...process.env, ...env }.IMGPOST_RECORD_RESPONSES);
  const child: ChildProcess = spawn(process.execPath, [...recorder, SERVER_JS], {
    cwd: ROOT,
    env: { ...process.env, ...CHILD_DEFAULTS, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = keepLog();
  child.stderr!.on('data', (c: Buffer) => log.add(c.toString()));
  const stderr = () => log.text();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the server exited (${child.exitCode}) before it answered:\n${stderr().slice(-3000)}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer within ${timeoutMs} ms:\n${stderr().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    output: stderr,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** An access-log line: one per request at level info, the only kind a long run makes by the thousand. */
const ACCESS_LINE = /^\{"level":"info".*"msg":"request"\}$/;
const ACCESS_KEEP_BYTES = 200_000;

/**
 * The child's log, bounded without losing what tests look for: under load the access log writes
 * hundreds of lines a second, and a plain tail of the output let them push out the one line a test
 * waited for (a cluster test missed "cluster degraded" after a minute of traffic). Every other line
 * is kept; access lines beyond the newest ~200 KB are dropped.
 */
function keepLog(): { add(chunk: string): void; text(): string } {
  let lines: string[] = [];
  let partial = '';
  let accessBytes = 0;
  return {
    add(chunk) {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (ACCESS_LINE.test(line)) accessBytes += line.length;
      }
      if (accessBytes <= ACCESS_KEEP_BYTES * 2) return;
      // Drop the oldest access lines until the newest ACCESS_KEEP_BYTES of them are left.
      let drop = accessBytes - ACCESS_KEEP_BYTES;
      lines = lines.filter((line) => {
        if (drop <= 0 || !ACCESS_LINE.test(line)) return true;
        drop -= line.length;
        accessBytes -= line.length;
        return false;
      });
    },
    text: () => lines.join('\n') + (lines.length > 0 ? '\n' : '') + partial,
  };
}

/** `imgpost <args>` as a child process; resolves with its exit code and output, never rejects on a non-zero exit. */
export async function cli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI_JS, ...args], {
      cwd: ROOT,
      env: { ...process.env, PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST, ...env },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
  }
}

/**
 * An account made by `imgpost user add` on `env`'s DATA_DIR (before the server starts, or beside it),
 * password `correct horse battery`; its access key. Throws with the command's stderr when it fails.
 */
export async function cliUser(env: Record<string, string>, name: string, permission?: number): Promise<string> {
  const permissionArgs = permission === undefined ? [] : ['--permission', String(permission)];
  const added = await cli(
    ['user', 'add', '--name', name, '--password', 'correct horse battery', ...permissionArgs],
    env,
  );
  if (added.code !== 0) throw new Error(`imgpost user add ${name}: ${added.code} ${added.stderr}`);
  return JSON.parse(added.stdout).accessKey as string;
}

/** The suite's shared Elasticsearch node (the managed one unless ELASTICSEARCH_URL names another). */
export const ES_URL = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';

/**
 * A DATA_DIR and an index prefix of the test's own for child processes, both removed when the test
 * ends. Teardowns run last-registered first, so a server the test starts (and stops in a teardown of
 * its own) is gone before its files and indices are.
 */
export function childDataDir(t: ExecutionContext, label: string): { dataDir: string; prefix: string } {
  const dataDir = tempDir(`imgpost-${label}`);
  const prefix = uniquePrefix();
  t.teardown(async () => {
    await deleteTestIndices(ES_URL, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { dataDir, prefix };
}

/**
 * What a child server of the test's own runs with: a DATA_DIR and an index prefix of its own
 * (childDataDir, removed when the test ends), a free port on loopback, the suite's Elasticsearch,
 * warnings and errors only in its log, and no rate limits (the tests that start children storm
 * them). `extra` adds settings or overrides these.
 */
export async function childEnv(
  t: ExecutionContext,
  label: string,
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; dataDir: string }> {
  const { dataDir, prefix } = childDataDir(t, label);
  const env = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    ...extra,
  };
  return { env, dataDir };
}
