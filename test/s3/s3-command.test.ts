/**
 * `imgpost s3 start|stop|status` (src/cli/s3-command.ts over tools/dev-services/s3proxy/managed-s3.ts) as a real child
 * process, in a cache directory of the test's own (IMGPOST_S3_HOME; the jar is taken from the
 * shared download cache when there): start prints the settings that point the service at the
 * server, and a store built from exactly those settings works; start again is a no-op; a second
 * port for a running directory is refused; stop stops it and leaves unrelated processes alone.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { s3StoreConfigFromEnv } from '../../src/config.ts';
import { S3MediaStore } from '../../src/media-store/s3-store.ts';
import { ensureJar, jarPath, s3Home } from '../../tools/dev-services/s3proxy/distribution.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}
function s3cli(home: string, ...args: string[]): Promise<Result> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // The compiled CLI, as an operator runs it (test/helpers/compiled.ts).
      [CLI_JS, 's3', ...args],
      { cwd: ROOT, env: { ...process.env, IMGPOST_S3_HOME: home, IMGPOST_S3_PORT: '' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          stdout,
          stderr,
          ms: Date.now() - started,
        });
      },
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

test('s3 start prints working settings, is idempotent, refuses a second port; stop stops only its own process', async (t) => {
  t.timeout(180_000);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-s3-cli-'));
  // Share the downloaded jar rather than fetching 55 MB again.
  const jar = await ensureJar();
  fs.mkdirSync(path.dirname(jarPath(home)), { recursive: true });
  fs.linkSync(jar, jarPath(home));
  t.not(home, s3Home());
  const port = await freePort();
  t.teardown(async () => {
    await s3cli(home, 'stop');
    fs.rmSync(home, { recursive: true, force: true });
  });

  const usage = [[], ['bogus'], ['stop', '--json'], ['start', '--port', 'x'], ['start', '--bucket', 'No_Such']];
  const [help, before, ...wrong] = await Promise.all([
    s3cli(home, '--help'),
    s3cli(home, 'status', '--json'),
    ...usage.map((args) => s3cli(home, ...args)),
  ]);
  t.is(help.code, 0);
  t.regex(help.stdout, /Usage: imgpost s3 <command>/);
  t.regex(help.stdout, /org\.gaul:s3proxy:[\d.]+:jar:jar-with-dependencies/);
  wrong.forEach((r, i) => {
    t.is(r.code, 2, `${usage[i].join(' ')}: ${r.stderr}`);
    t.is(r.stdout, '');
  });

  t.is(before.code, 0, before.stderr);
  t.false(JSON.parse(before.stdout).running);

  const start = await s3cli(home, 'start', '--port', String(port), '--bucket', 'photos');
  t.is(start.code, 0, start.stderr);
  t.regex(start.stderr, /S3Proxy is ready/);
  t.regex(start.stderr, /created bucket photos/);
  const env = Object.fromEntries(
    start.stdout
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  t.like(env, { MEDIA_STORE: 's3://photos/', S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_FORCE_PATH_STYLE: '1' });

  // The printed settings are all a server needs.
  const store = new S3MediaStore(s3StoreConfigFromEnv(env)!);
  t.teardown(() => store.close());
  await store.check();
  await store.put('ab/x.jpg', { buffer: Buffer.from('hello') }, { contentType: 'image/jpeg' });
  t.true(
    fs.existsSync(path.join(home, 'data', 'photos', 'ab', 'x.jpg')),
    'the filesystem backend keeps the object as a file under <home>/data/<bucket>',
  );

  const status = JSON.parse((await s3cli(home, 'status', '--json')).stdout);
  t.like(status, {
    running: true,
    endpoint: `http://127.0.0.1:${port}`,
    port,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
  });
  t.is(typeof status.pid, 'number');
  t.is(fs.statSync(path.join(home, 'credentials.json')).mode & 0o777, 0o600, 'the credentials file is private');

  const again = await s3cli(home, 'start', '--bucket', 'photos', '--json');
  t.is(again.code, 0, again.stderr);
  t.like(JSON.parse(again.stdout), { pid: status.pid, port, bucket: 'photos' });
  t.notRegex(again.stderr, /starting S3Proxy|created bucket/);

  const otherPort = await s3cli(home, 'start', '--port', String(await freePort()));
  t.is(otherPort.code, 1);
  t.regex(otherPort.stderr, new RegExp(`already runs \\(pid ${status.pid}\\) on port ${port}`));

  const stop = await s3cli(home, 'stop');
  t.is(stop.code, 0, stop.stderr);
  t.regex(stop.stderr, /stopped S3Proxy/);
  t.false(JSON.parse((await s3cli(home, 'status', '--json')).stdout).running);
  await t.throwsAsync(store.check(), { message: /unavailable/ });

  // A pid file that names some other live process (a reused pid) is never signalled.
  fs.writeFileSync(path.join(home, 'run', 's3proxy.pid'), `${process.pid}\n`);
  const stale = await s3cli(home, 'stop');
  t.is(stale.code, 0);
  t.regex(stale.stderr, /no managed S3Proxy was running/);

  // Its data survives a restart.
  const restart = await s3cli(home, 'start', '--bucket', 'photos');
  t.is(restart.code, 0, restart.stderr);
  const got = await store.get('ab/x.jpg');
  t.is(got?.size, 5);
  got?.body.destroy();
});
