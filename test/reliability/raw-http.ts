/**
 * A deliberately dumb HTTP/1.1 client over node:net, for sending what fetch and node:http refuse
 * to produce or would normalise: raw bytes in the request target, invalid header bytes, duplicate
 * and conflicting headers, truncated or endless bodies.
 */
import net from 'node:net';

export interface RawRequest {
  /** short family name, for reports */
  label: string;
  method: string;
  /** the request target exactly as sent (latin1), e.g. '/media/..%2F' */
  target: string;
  headers: [string, string][];
  body?: Buffer;
  /**
   * Send only this many bytes of `body` and then half-close: a client that gives up mid-body.
   * Content-Length (when present) still announces the whole body.
   */
  truncateAt?: number;
  /** Stream `total` bytes of `chunk` repeated instead of `body` (e.g. a 50 MB part), chunked or with Content-Length. */
  stream?: { head: Buffer; chunk: Buffer; total: number; tail: Buffer };
  /** the request may legitimately end with the server closing the connection unanswered */
  mayClose?: boolean;
}

export interface RawResponse {
  /** 0: the connection closed (or was reset) before a status line arrived */
  status: number;
  head: string;
  bytes: number;
  ms: number;
  error?: string;
  timedOut?: boolean;
}

const CRLF = '\r\n';

/** The request head as bytes; values are latin1 so any byte 0x00-0xff can be sent. */
export function encodeHead(req: RawRequest): Buffer {
  const lines = [`${req.method} ${req.target} HTTP/1.1`, ...req.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(lines.join(CRLF) + CRLF + CRLF, 'latin1');
}

export function send(port: number, req: RawRequest, timeoutMs = 20_000): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let size = 0;
    let error: string | undefined;
    let done = false;
    const finish = (timedOut = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      // Only the head matters; keep at most 64 KiB of what came back.
      const data = Buffer.concat(chunks);
      const text = data.subarray(0, Math.min(data.length, 4096)).toString('latin1');
      // Skip interim responses (100 Continue) to the final status.
      const m = /^HTTP\/1\.[01] (?!1\d\d)(\d{3})/m.exec(text);
      const final = m ? text.slice(m.index) : text;
      const headEnd = final.indexOf('\r\n\r\n');
      resolve({
        status: m ? Number(m[1]) : 0,
        head: headEnd >= 0 ? final.slice(0, headEnd) : final,
        bytes: size,
        ms: performance.now() - started,
        error,
        timedOut,
      });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 65536) chunks.push(c);
    });
    socket.on('error', (err) => {
      error = (err as NodeJS.ErrnoException).code ?? err.message;
      finish();
    });
    socket.on('close', () => finish());
    socket.on('connect', () => void write().catch((err: Error) => (error ??= err.message)));

    async function write(): Promise<void> {
      const put = (b: Buffer) =>
        new Promise<void>((ok) => {
          // Resolve on error too: the server may refuse (413) and close while we are still writing.
          if (done || socket.destroyed) return ok();
          if (socket.write(b)) ok();
          else {
            socket.once('drain', ok);
            socket.once('close', ok);
          }
        });
      await put(encodeHead(req));
      if (req.stream) {
        const { head, chunk, total, tail } = req.stream;
        await put(head);
        for (let sent = 0; sent < total && !done && !socket.destroyed; sent += chunk.length) await put(chunk);
        await put(tail);
      } else if (req.body) {
        await put(req.truncateAt === undefined ? req.body : req.body.subarray(0, req.truncateAt));
      }
      // Every request announces `Connection: close`, so the server ends the exchange. Half-closing at
      // once would make node abort the request unanswered; a request that may leave the server waiting
      // for bytes that never come (declared length too long) is half-closed after a moment.
      if (req.mayClose || req.truncateAt !== undefined)
        setTimeout(() => !socket.destroyed && socket.end(), 1000).unref();
    }
  });
}

/** Runs `tasks` with at most `n` in flight. */
export async function runPool<T, R>(items: T[], n: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}
