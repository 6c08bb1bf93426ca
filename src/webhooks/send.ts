/**
 * One webhook POST over node:http(s) with the dispatcher's keep-alive agents (see ssrf.ts for why
 * reused connections still only ever reach checked addresses). Plain http.request rather than a
 * fetch implementation: per delivery it saves the Request/Headers/stream objects, and it tells us
 * whether a socket was reused, which keep-alive needs (below).
 */
import http from 'node:http';
import https from 'node:https';

export interface SendOptions {
  body: string;
  headers: Record<string, string>;
  agent: http.Agent;
  /** Until response headers arrive. */
  timeoutMs: number;
  /** Shutdown: abort with the signal's reason. */
  signal: AbortSignal;
}

export class SendTimeoutError extends Error {}

/** Response bodies are of no interest; this much is read so the connection can be reused, beyond it the connection is dropped. */
const MAX_DRAIN_BYTES = 64 * 1024;

function once(url: URL, o: SendOptions): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'POST',
      agent: o.agent,
      headers: { ...o.headers, 'Content-Length': String(Buffer.byteLength(o.body, 'utf8')) },
    });
    let settled = false;
    const finish = (err: Error | undefined, status = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      if (err) reject(Object.assign(err, { reused: req.reusedSocket }));
      else resolve({ status, reused: req.reusedSocket });
    };
    const timer = setTimeout(() => {
      finish(new SendTimeoutError(`timed out after ${o.timeoutMs} ms`));
      req.destroy();
    }, o.timeoutMs);
    const onAbort = () => {
      finish(o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted'));
      req.destroy();
    };
    o.signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish(err));
    req.on('response', (res) => {
      finish(undefined, res.statusCode ?? 0);
      // Drain a little so the socket goes back to the pool; a receiver that streams at us loses its connection.
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_DRAIN_BYTES) res.destroy();
      });
      res.on('error', () => {});
    });
    req.end(o.body, 'utf8');
  });
}

/**
 * POSTs the body; resolves with the status, rejects with the network error (or SendTimeoutError).
 * A receiver may close an idle keep-alive connection just as we reuse it; that request never
 * reached it, so it is sent once more on a fresh connection (as Node's documentation advises)
 * rather than counted as the receiver's failure. A repeat is possible only if the receiver got
 * the request and then reset the connection without answering, and at-least-once allows it: the
 * X-Webhook-Delivery id is the same.
 */
export async function postWebhook(url: URL, o: SendOptions): Promise<number> {
  try {
    return (await once(url, o)).status;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { reused?: boolean };
    if (!e.reused || o.signal.aborted || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw err;
    return (await once(url, o)).status;
  }
}
