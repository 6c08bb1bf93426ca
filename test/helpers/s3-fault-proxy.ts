import http from 'node:http';
import type net from 'node:net';

/**
 * A fault injector in front of a real S3 server (test/helpers/s3.ts): an HTTP proxy on its own port
 * that passes requests through unchanged (the Host header included, so S3 signatures stay valid)
 * until told to misbehave: answer 500 (S3's InternalError), answer late, never answer, or reset the
 * connection, for every request or for the next `count` ones. Not a mock: what it passes through is
 * answered by the real server.
 */
export type Fault =
  | { kind: 'error500' }
  | { kind: 'slow'; ms: number }
  | { kind: 'hang' }
  | { kind: 'reset' }
  // passed through and answered by the server (the write is done), but the answer never reaches the client
  | { kind: 'swallowAnswer'; method?: string };

export interface FaultProxy {
  endpoint: string;
  /** Misbehave for the next `count` requests (all of them when omitted). */
  inject(fault: Fault, count?: number): void;
  /** Pass everything through again. */
  heal(): void;
  /** Requests seen, by method and path. */
  readonly seen: string[];
  /** Requests answered upstream whose answer was swallowed: method, path, status. */
  readonly swallowed: string[];
  close(): Promise<void>;
}

export async function faultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  // Its own pool, destroyed on close: idle keep-alive sockets would keep the test process up.
  const agent = new http.Agent({ keepAlive: true });
  let fault: Fault | undefined;
  let remaining = Infinity;
  const seen: string[] = [];
  const swallowed: string[] = [];
  const sockets = new Set<net.Socket>();
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const matches = fault?.kind !== 'swallowAnswer' || !fault.method || fault.method === req.method;
    const active = fault && remaining > 0 && matches ? fault : undefined;
    if (active) remaining--;
    if (active?.kind === 'hang') {
      hanging.add(res);
      req.resume();
      return;
    }
    if (active?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (active?.kind === 'error500') {
      req.resume();
      req.once('end', () => {
        res.writeHead(500, { 'content-type': 'application/xml', 'x-amz-request-id': 'FAULT' });
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>',
        );
      });
      return;
    }
    const forward = () => {
      const out = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        (answer) => {
          if (active?.kind === 'swallowAnswer') {
            answer.resume();
            swallowed.push(`${req.method} ${req.url} ${answer.statusCode}`);
            hanging.add(res);
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (active?.kind === 'slow') setTimeout(forward, active.ms);
    else forward();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    swallowed,
    inject(f, count) {
      fault = f;
      remaining = count ?? Infinity;
    },
    heal() {
      fault = undefined;
      for (const r of hanging) r.destroy();
      hanging.clear();
    },
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
