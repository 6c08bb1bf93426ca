/**
 * Webhook receivers for bench/webhook-drain.ts, run as a child process (`fork` with tsx) so that
 * receiving costs no time on the sender's event loop. One loopback HTTP server per receiver; each
 * checks what a real receiver would (the X-Signature HMAC over the raw bytes, compared in constant
 * time) and that events arrive in order: every body carries "drain <n>" with n rising per receiver.
 *
 * Messages from the parent: { secrets: string[] } once (answered with { ports }), then
 * { expect: n } to reset the counters and be told { done } when n requests have arrived in all,
 * and { report: true } (answered with { report }).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceiversReport {
  received: number;
  perReceiver: number[];
  badSignatures: number;
  /** a body whose number was not above the previous one at the same receiver (order broken or a repeat) */
  outOfOrder: number;
  /** most requests one receiver had open at once: the sender's concurrency per receiver */
  maxConcurrent: number;
}

type Msg = { secrets?: string[]; expect?: number; report?: boolean };

// Strings, not Buffers: on Node 24, createHmac with a Buffer key throws and catches two errors per
// call to learn that it is not a KeyObject (bench/notes/node24.md), which
// would load the receivers' side of a Node 24 drain and not a Node 20 one.
let secrets: string[] = [];
let expected = Number.POSITIVE_INFINITY;
let state = fresh(0);

function fresh(n: number) {
  return {
    received: 0,
    perReceiver: new Array<number>(n).fill(0),
    last: new Array<number>(n).fill(-1),
    open: new Array<number>(n).fill(0),
    badSignatures: 0,
    outOfOrder: 0,
    maxConcurrent: 0,
  };
}

function handle(i: number, req: http.IncomingMessage, res: http.ServerResponse): void {
  state.open[i]++;
  state.maxConcurrent = Math.max(state.maxConcurrent, state.open[i]);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const given = String(req.headers['x-signature'] ?? '');
    const expectedSig = crypto.createHmac('sha256', secrets[i]).update(raw).digest();
    if (!/^[0-9a-f]{64}$/.test(given) || !crypto.timingSafeEqual(expectedSig, Buffer.from(given, 'hex')))
      state.badSignatures++;
    const n = Number(/drain (\d+)/.exec(raw.toString('latin1'))?.[1] ?? -1);
    if (n <= state.last[i]) state.outOfOrder++;
    state.last[i] = n;
    state.perReceiver[i]++;
    state.received++;
    state.open[i]--;
    res.writeHead(204).end();
    if (state.received === expected) process.send!({ done: true });
  });
}

process.on('message', async (msg: Msg) => {
  if (msg.secrets) {
    secrets = msg.secrets;
    state = fresh(secrets.length);
    const ports: number[] = [];
    for (let i = 0; i < secrets.length; i++) {
      const server = http.createServer((req, res) => handle(i, req, res));
      // Longer than any pause in the run: the sender decides when a connection is idle.
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      ports.push((server.address() as AddressInfo).port);
    }
    process.send!({ ports });
  } else if (msg.expect !== undefined) {
    expected = msg.expect;
    state = fresh(secrets.length);
    process.send!({ ready: true });
  } else if (msg.report) {
    const { received, perReceiver, badSignatures, outOfOrder, maxConcurrent } = state;
    process.send!({
      report: { received, perReceiver, badSignatures, outOfOrder, maxConcurrent } satisfies ReceiversReport,
    });
  }
});
process.on('disconnect', () => process.exit(0));
