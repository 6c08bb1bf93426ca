import http from 'node:http';
import type Koa from 'koa';

export interface RunningServer {
  server: http.Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
  close(graceMs?: number): Promise<void>;
}

/** Bounds against slow clients (milliseconds); tests lower them. */
export interface ListenOptions {
  /** the whole header block must arrive within this */
  headersTimeoutMs?: number;
  /** the whole request, body included, must arrive within this */
  requestTimeoutMs?: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutMs?: number;
  /** a socket with no traffic either way for this long is closed */
  idleTimeoutMs?: number;
  /** how often header and request time-outs are checked (node's default is 30 s, far above small bounds) */
  checkIntervalMs?: number;
}

export function listen(
  app: Pick<Koa, 'callback'>,
  host: string,
  port: number,
  opts: ListenOptions = {},
): Promise<RunningServer> {
  const server = http.createServer({ connectionsCheckingInterval: opts.checkIntervalMs ?? 1_000 }, app.callback());
  // Slow clients must not hold sockets forever.
  server.headersTimeout = opts.headersTimeoutMs ?? 20_000;
  server.requestTimeout = opts.requestTimeoutMs ?? 60_000;
  server.keepAliveTimeout = opts.keepAliveTimeoutMs ?? 5_000;
  server.timeout = opts.idleTimeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        server,
        port: typeof address === 'object' && address ? address.port : port,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
