/**
 * One server per DATA_DIR (docs/decisions.md §13), with real processes: a second `src/main.ts` on the same
 * directory exits 1 with one line naming the running server; after kill -9 of the first (no
 * shutdown hook runs), a new server takes the directory over.
 */
import { spawn } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { childDataDir, cli, ES_URL, freePort, startChild, type ChildServer } from '../reliability/child-server.ts';
import { SERVER_JS } from '../helpers/compiled.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** What a test's processes share: a DATA_DIR and an index prefix of its own, removed after it. */
function sharedEnv(t: ExecutionContext, label: string) {
  const { dataDir, prefix } = childDataDir(t, label);
  return {
    DATA_DIR: dataDir,
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    HASH_WORKERS: '1',
  };
}

/** Runs a server process to its exit (it must exit by itself) and returns its code and stderr. */
function runToExit(env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_JS], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the second server kept running:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a second server on the same DATA_DIR exits 1 naming the first; after kill -9 a new one starts', async (t) => {
  t.timeout(180_000);
  const base = sharedEnv(t, 'owner');
  const dataDir = base.DATA_DIR;
  const servers: ChildServer[] = [];
  t.teardown(async () => {
    for (const s of servers) await s.stop();
  });

  const first = await startChild({ ...base, PORT: String(await freePort()) });
  servers.push(first);

  const second = await runToExit({ ...base, PORT: String(await freePort()) });
  t.is(second.code, 1);
  const lines = second.stderr.split('\n').filter(Boolean);
  t.is(lines.length, 1, second.stderr);
  t.regex(
    lines[0],
    // Named by its PUBLIC_URL, which defaults to http://localhost:PORT (docs/decisions.md §1).
    new RegExp(
      `^imgpost: .*${dataDir}.* in use by the imgpost server pid ${first.pid} .*\\(http://localhost:${new URL(first.url).port}\\)`,
    ),
  );
  // The first one never noticed.
  t.is((await fetch(`${first.url}/healthz`)).status, 200);

  await first.kill9();
  const third = await startChild({ ...base, PORT: String(await freePort()) });
  servers.push(third);
  t.is((await fetch(`${third.url}/healthz`)).status, 200);
  // And it now owns the directory: yet another is refused, naming the new owner.
  const fourth = await runToExit({ ...base, PORT: String(await freePort()) });
  t.is(fourth.code, 1);
  t.regex(fourth.stderr, new RegExp(`pid ${third.pid} `));
});

test('a CLI job runs beside the server without taking the DATA_DIR', async (t) => {
  t.timeout(120_000);
  const base = sharedEnv(t, 'owner-cli');
  const server = await startChild({ ...base, PORT: String(await freePort()) });
  t.teardown(() => server.stop());
  const listed = await cli(['user', 'list'], base);
  t.is(listed.code, 0, listed.stderr);
  const verified = await cli(['verify', '--json'], base);
  t.is(verified.code, 0, verified.stderr);
  t.is((await fetch(`${server.url}/healthz`)).status, 200);
});
