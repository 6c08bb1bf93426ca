import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureBuild } from '../../scripts/build.mjs';
import { ROOT } from './env.ts';

/**
 * The server as its own process, as it runs in production (the compiled server.js of
 * scripts/build.mjs): the load generator then does not share its event loop, and its RSS can be read
 * alone. IMGPOST_BENCH_START=tsx runs `node --import tsx src/main.ts` instead (the start mode before
 * issue 28, for a comparison in one session); another checkout's tree always runs that way.
 */
export interface ServerProcess {
  url: string;
  pid: number;
  /** the last lines it wrote on stderr (for error messages) */
  tail(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 120_000;

/** `root`: another checkout's tree (same node_modules), e.g. the base commit for a before/after in one session. */
export async function startServerProcess(env: Record<string, string>, root = ROOT): Promise<ServerProcess> {
  const args = root !== ROOT || process.env.IMGPOST_BENCH_START === 'tsx' ? ['--import', 'tsx', 'src/main.ts'] : [path.join(await ensureBuild(), 'server.js')];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    // info level: the "listening" line carries the port chosen for PORT=0.
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${START_TIMEOUT_MS / 1000} s:\n${lines.slice(-20).join('\n')}`));
    }, START_TIMEOUT_MS);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with code ${code} before listening:\n${lines.slice(-20).join('\n')}`));
    });
    // Always drained, so a chatty server never blocks on a full pipe.
    child.stderr!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (lines.length > 200) lines.shift();
        let event: { msg?: string; port?: number } | undefined;
        try {
          event = JSON.parse(line) as { msg?: string; port?: number };
        } catch {
          continue;
        }
        if (event?.msg === 'listening' && typeof event.port === 'number') {
          clearTimeout(timer);
          resolve({
            url: `http://127.0.0.1:${event.port}`,
            pid: child.pid!,
            tail: () => lines.slice(-20).join('\n'),
            async stop() {
              if (child.exitCode !== null) return;
              child.kill('SIGTERM');
              const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
              await exited;
              clearTimeout(killer);
            },
          });
        }
      }
    });
  });
}
