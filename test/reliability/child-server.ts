/** The real server and CLI as child processes (`node --import tsx ...`), as they run in production. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { childRecorderArgs } from '../ecosystem/response-recorder.ts';

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
  /** stderr so far (the server logs JSON lines there) */
  output(): string;
  /** SIGKILL: no shutdown hook runs, nothing is flushed */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `src/main.ts` on `env.PORT` and resolves once /healthz answers. Under IMGPOST_RECORD_RESPONSES
 * (as `npm test` runs) the child records its responses too, for the OpenAPI check.
 */
export async function startChild(env: Record<string, string>, timeoutMs = 60_000): Promise<ChildServer> {
  const recorder = childRecorderArgs({ ...process.env, ...env }.IMGPOST_RECORD_RESPONSES);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...recorder, 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before it answered:\n${stderr.slice(-3000)}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer within ${timeoutMs} ms:\n${stderr.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    output: () => stderr,
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

/** `imgpost <args>` as a child process; resolves with its exit code and output, never rejects on a non-zero exit. */
export async function cli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
  }
}
