/** A webhook receiver on loopback for tests: records every request, answers as told. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body bytes, as signed. */
  raw: Buffer;
  body: string;
  at: number;
}

/**
 * 'hang': read the request, never answer. 'dawdle': answer 200 with a 100-byte body, send two bytes of it and never
 * the rest. A function picks per request (n counts from 1).
 */
export type Mode =
  | number
  | 'hang'
  | 'dawdle'
  | { status: number; headers: Record<string, string> }
  | ((n: number) => number | 'hang' | 'dawdle');

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  connections: number;
  mode: Mode;
  /** Resolves once `n` requests have arrived in total; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(mode: Mode = 200, host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  let waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body: raw.toString('utf8'),
        at: Date.now(),
      });
      waiters = waiters.filter((w) => (received.length >= w.n ? (w.resolve(), false) : true));
      const m = typeof receiver.mode === 'function' ? receiver.mode(received.length) : receiver.mode;
      if (m === 'hang' || m === 'dawdle') {
        if (m === 'dawdle') {
          res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '100' });
          res.write('ok');
        }
        hanging.add(res);
        return;
      }
      const { status, headers } = typeof m === 'number' ? { status: m, headers: {} } : m;
      res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
      res.end(status < 300 ? 'ok' : 'no');
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/hook`,
    port,
    received,
    connections: 0,
    mode,
    waitFor(n, timeoutMs = 15_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(received)) });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** What a receiver should do: recompute the HMAC over the raw bytes, compare in constant time. */
export function signatureValid(r: Received, secret: string): boolean {
  const given = String(r.headers['x-signature'] ?? '');
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = crypto.createHmac('sha256', secret).update(r.raw).digest();
  return crypto.timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

/**
 * A name other than localhost that /etc/hosts maps to 127.x, if this machine has one: a loopback
 * receiver reached by a name the URL check cannot refuse by its spelling.
 */
export function loopbackHostsName(): string | undefined {
  try {
    for (const line of fs.readFileSync('/etc/hosts', 'utf8').split('\n')) {
      const [addr, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
      if (!addr?.startsWith('127.')) continue;
      const name = names.find((n) => n && !/localhost/i.test(n) && /^[a-z0-9.-]+$/i.test(n));
      if (name) return name;
    }
  } catch {
    /* no hosts file */
  }
  return undefined;
}
