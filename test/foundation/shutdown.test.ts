/**
 * SIGTERM drains (src/main.ts): the real server as a child process stops accepting connections at
 * once, lets the request in flight finish with its normal status (and its write is kept), closes
 * idle keep-alive connections, and exits 0 within a bound; a client that stalls mid-request cannot
 * hold the process past the grace period.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { encodedUploadForm, randomImage } from '../helpers/fixtures.ts';
import { childDataDir, cliUser, ES_URL, freePort } from '../reliability/child-server.ts';
import { SERVER_JS } from '../helpers/compiled.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
/** SHUTDOWN_GRACE_MS's default: what main.ts gives in-flight requests */
const GRACE_MS = 10_000;
/** The stalled client's server waits this long instead, for the same check in less time. */
const SHORT_GRACE_MS = 3000;

interface Child {
  port: number;
  dataDir: string;
  key: string;
  proc: ChildProcess;
  stderr(): string;
  /** resolves with the exit code (null when killed by a signal) */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A race's losing side: unref'd, so it does not keep the worker (and its slot in ava's pool) up for its length. */
const timeout = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** A data dir with one user (made by the admin command), and the server on it as a child process. */
async function startServer(t: ExecutionContext, extraEnv: Record<string, string> = {}): Promise<Child> {
  const { dataDir, prefix } = childDataDir(t, 'shutdown');
  const port = await freePort();
  const env = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    ELASTICSEARCH_URL: ES_URL,
    ELASTICSEARCH_INDEX_PREFIX: prefix,
    LOG_LEVEL: 'info',
    HASH_WORKERS: '1',
    ...extraEnv,
  };
  let proc: ChildProcess | undefined;
  t.teardown(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  const key = await cliUser(env, `drain_${port}`);

  proc = spawn(process.execPath, [SERVER_JS], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc!.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}):\n${stderr.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer:\n${stderr.slice(-3000)}`);
    await sleep(100);
  }
  return { port, dataDir, key, proc, stderr: () => stderr, exited };
}

/** Whether a new TCP connection to the port is refused (resolves 'refused'), accepted, or something else. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ECONNREFUSED' ? 'refused' : (err.code ?? err.message)),
    );
  });
}

/** A raw HTTP/1.1 exchange whose body the test sends piece by piece. */
function rawRequest(port: number, head: string) {
  const socket = net.connect(port, '127.0.0.1');
  let response = '';
  socket.on('data', (c: Buffer) => (response += c.toString('latin1')));
  socket.on('error', () => {});
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(response)));
  return {
    socket,
    async start() {
      await connected;
      socket.write(head, 'latin1');
    },
    write: (b: Buffer) =>
      new Promise<void>((resolve) => (socket.write(b) ? resolve() : socket.once('drain', () => resolve()))),
    closed,
  };
}

async function uploadBytes(seed: number): Promise<{ type: string; body: Buffer }> {
  return encodedUploadForm({ image: await randomImage(seed, 400, 300), metadata: { text: `in flight ${seed}` } });
}

const parse = (raw: string) => {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const at = raw.indexOf('\r\n\r\n');
  return { status, head: raw.slice(0, at), body: at >= 0 ? raw.slice(at + 4) : '' };
};

test('SIGTERM: the in-flight upload completes with 201, new connections are refused, the process exits 0', async (t) => {
  t.timeout(120_000);
  const server = await startServer(t);
  const { type, body } = await uploadBytes(81_001);

  // An idle keep-alive connection must not hold the shutdown up.
  const idle = rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  await idle.start();
  await sleep(200);
  t.is(idle.socket.readyState, 'open', 'kept alive before the signal');

  // The in-flight upload: head and the first part of the body, then SIGTERM, then the rest, slowly.
  const upload = rawRequest(
    server.port,
    `POST /api/post/ HTTP/1.1\r\nHost: x\r\nX-Access-Key: ${server.key}\r\nX-Request-Id: drain-probe\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  await upload.start();
  const third = Math.floor(body.length / 3);
  await upload.write(body.subarray(0, third));
  await sleep(300);

  const signalled = performance.now();
  server.proc.kill('SIGTERM');

  // The listening socket closes at once; the process is still alive, waiting for the upload.
  let refusedAfterMs = -1;
  while (performance.now() - signalled < 3000) {
    if ((await tryConnect(server.port)) === 'refused') {
      refusedAfterMs = performance.now() - signalled;
      break;
    }
    await sleep(20);
  }
  t.true(refusedAfterMs >= 0, 'new connections are refused after SIGTERM');
  t.is(server.proc.exitCode, null, 'the process waits for the request in flight');
  await fetch(`http://127.0.0.1:${server.port}/healthz`).then(
    () => t.fail('a new request was answered after SIGTERM'),
    (err: Error) => t.regex(String((err.cause as NodeJS.ErrnoException)?.code), /ECONNREFUSED/),
  );
  // The idle keep-alive connection has been closed by the server.
  const idleResponse = await Promise.race([idle.closed, timeout(3000).then(() => 'still open')]);
  t.not(idleResponse, 'still open', 'idle keep-alive connections are closed');
  t.regex(idleResponse, /^HTTP\/1\.1 200/);

  // The rest of the body, in a few slow pieces.
  const rest = body.subarray(third);
  const step = Math.ceil(rest.length / 5);
  for (let i = 0; i < rest.length; i += step) {
    await upload.write(rest.subarray(i, i + step));
    await sleep(150);
  }
  const response = parse(await upload.closed);
  t.is(response.status, 201, response.head + '\n' + response.body.slice(0, 500));
  t.regex(response.head, /X-Request-Id: drain-probe/i);
  const post = JSON.parse(response.body);
  t.is(post.text, 'in flight 81001');
  t.regex(response.head, /Connection: close/i);

  const exit = await Promise.race([server.exited, timeout(15_000).then(() => undefined)]);
  t.truthy(exit, `the process did not exit within 15 s of the last response:\n${server.stderr().slice(-2000)}`);
  t.is(exit!.code, 0, server.stderr().slice(-2000));
  t.is(exit!.signal, null);
  t.true(exit!.at - signalled < GRACE_MS, `exited ${(exit!.at - signalled).toFixed(0)} ms after SIGTERM`);
  t.log(`refused after ${refusedAfterMs.toFixed(0)} ms; exited ${(exit!.at - signalled).toFixed(0)} ms after SIGTERM`);
  t.regex(server.stderr(), /"msg":"shutting down"/);
  t.notRegex(server.stderr(), /"level":"error"/);

  // The acknowledged write is on disk: row and image file.
  const db = new Database(path.join(server.dataDir, 'imgpost.sqlite'), { readonly: true, fileMustExist: true });
  t.teardown(() => db.close());
  t.is(db.prepare('SELECT text FROM posts WHERE id = ?').pluck().get(post.id), 'in flight 81001');
  t.true(
    fs.readdirSync(server.dataDir, { recursive: true }).some((f) => String(f).endsWith(post.image)),
    'the image file is kept',
  );
});

test('SIGTERM: a client that stalls mid-request cannot keep the process alive past the grace period', async (t) => {
  t.timeout(120_000);
  const server = await startServer(t, { SHUTDOWN_GRACE_MS: String(SHORT_GRACE_MS) });
  const { type, body } = await uploadBytes(81_002);
  const stalled = rawRequest(
    server.port,
    `POST /api/post/ HTTP/1.1\r\nHost: x\r\nX-Access-Key: ${server.key}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  await stalled.start();
  await stalled.write(body.subarray(0, body.length >> 1));
  await sleep(300);

  const signalled = performance.now();
  server.proc.kill('SIGTERM');
  const exit = await Promise.race([server.exited, timeout(SHORT_GRACE_MS + 10_000).then(() => undefined)]);
  t.truthy(exit, 'the process exits although the request never completes');
  t.is(exit!.code, 0, server.stderr().slice(-2000));
  const ms = exit!.at - signalled;
  t.true(
    ms >= SHORT_GRACE_MS - 500 && ms < SHORT_GRACE_MS + 5000,
    `exited ${ms.toFixed(0)} ms after SIGTERM (SHUTDOWN_GRACE_MS ${SHORT_GRACE_MS})`,
  );
  // The stalled connection was cut, and the half-sent upload stored nothing.
  await Promise.race([stalled.closed, timeout(2000)]);
  t.true(stalled.socket.destroyed || stalled.socket.readyState !== 'open');
  const db = new Database(path.join(server.dataDir, 'imgpost.sqlite'), { readonly: true, fileMustExist: true });
  t.teardown(() => db.close());
  t.is(db.prepare('SELECT COUNT(*) FROM posts').pluck().get(), 0);
});
