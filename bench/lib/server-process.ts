import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './env.ts';

/**
 * The server as its own process, started the way production starts it: `npm start` in the
 * checkout, so the bench follows whatever that runs (tsx today; a runtime or a build step that
 * `npm start` picks up later, issue 28) without a copy of the command here. The load generator then
 * does not share its event loop, and its RSS and CPU can be read alone: `pid` is the server's own
 * process (the one that logs "listening", whose log lines carry their pid), not npm's or a wrapper's.
 */
export interface ServerProcess {
  url: string;
  /** the process that serves (from its "listening" line), for /proc/<pid>/stat and RSS */
  pid: number;
  /** the last lines it wrote on stderr (for error messages) */
  tail(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 180_000;

/** Whether the process `pid` still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `root`: another checkout's tree (same node_modules), e.g. the base commit for a before/after in one session. */
export function startServerProcess(env: Record<string, string>, root = ROOT): Promise<ServerProcess> {
  // Its own process group: npm, a shell and a wrapper may stand between us and the server, and
  // stopping the group reaches all of them.
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: root,
    detached: true,
    // info level: the "listening" line carries the port chosen for PORT=0.
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal('SIGKILL');
      reject(
        new Error(`the server did not start within ${START_TIMEOUT_MS / 1000} s:\n${lines.slice(-20).join('\n')}`),
      );
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
        let event: { msg?: string; port?: number; pid?: number } | undefined;
        try {
          event = JSON.parse(line) as { msg?: string; port?: number; pid?: number };
        } catch {
          continue;
        }
        if (event?.msg === 'listening' && typeof event.port === 'number') {
          clearTimeout(timer);
          resolve({
            url: `http://127.0.0.1:${event.port}`,
            pid: event.pid ?? child.pid!,
            tail: () => lines.slice(-20).join('\n'),
            async stop() {
              if (child.exitCode !== null || child.signalCode !== null) return;
              signal('SIGTERM');
              const killer = setTimeout(() => signal('SIGKILL'), 20_000);
              await exited;
              // npm may exit before the server has: wait for the server process itself.
              const serverPid = event!.pid;
              const until = Date.now() + 30_000;
              while (serverPid !== undefined && alive(serverPid) && Date.now() < until)
                await new Promise((r) => setTimeout(r, 100));
              clearTimeout(killer);
            },
          });
        }
      }
    });
  });
}
