/**
 * One webhook POST through node-fetch (the design's named client) over the dispatcher's keep-alive
 * agents. node-fetch hands the agent to http.request, so every new connection still goes through
 * the agent's address-checking lookup, and a reused one only ever reaches an address checked when
 * it was opened (ssrf.ts).
 */
import type http from 'node:http';
import fetch, { FetchError } from 'node-fetch';

export interface SendOptions {
  body: string;
  headers: Record<string, string>;
  agent: http.Agent;
  /** Until response headers arrive. */
  timeoutMs: number;
  /** Shutdown: abort with the signal's reason. */
  signal: AbortSignal;
}

/** POSTs the body; resolves with the status, rejects with the network error (or SendTimeoutError). */
export type PostWebhook = (url: URL, o: SendOptions) => Promise<number>;

export class SendTimeoutError extends Error {}

/** Response bodies are of no interest; this much is read so the connection can be reused, beyond it the connection is dropped. */
export const MAX_DRAIN_BYTES = 64 * 1024;
export const MAX_DRAIN_MS = 1000;

/**
 * The status decides the outcome; the body is read to its end (a few bytes, normally) so the
 * connection is back in the pool before the next send: resolving at the headers made the next
 * delivery open a new connection while this one was still busy. A receiver that streams a large
 * body, or dawdles over it, loses its connection (destroying node-fetch's body stream destroys
 * the response under it, and with it the socket). A connection lost while draining changes
 * nothing: the status is already known.
 */
function drain(body: NodeJS.ReadableStream & { destroy(): void }): Promise<void> {
  return new Promise<void>((resolve) => {
    let read = 0;
    const timer = setTimeout(() => body.destroy(), MAX_DRAIN_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_DRAIN_BYTES) body.destroy();
    });
    body.on('end', done);
    body.on('close', done);
    body.on('error', done);
  });
}

async function once(url: URL, o: SendOptions): Promise<number> {
  // One controller for both ends of a request: the time-out until headers, and shutdown.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, o.timeoutMs);
  const onAbort = () => controller.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    // compress: false sends no Accept-Encoding (the body is thrown away); redirects are reported, not followed.
    const res = await fetch(url, { method: 'POST', agent: o.agent, headers: o.headers, body: o.body, signal: controller.signal, compress: false, redirect: 'manual' });
    clearTimeout(timer);
    if (res.body) await drain(res.body as unknown as NodeJS.ReadableStream & { destroy(): void });
    return res.status;
  } catch (err) {
    if (o.signal.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted');
    if (timedOut) throw new SendTimeoutError(`timed out after ${o.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    o.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A receiver may close an idle keep-alive connection just as we reuse it; that request never
 * reached it, so it is sent once more on a fresh connection (as Node's documentation advises)
 * rather than counted as the receiver's failure. node-fetch does not say whether the socket was a
 * reused one, so a reset before any answer is retried once either way; a repeat is possible only
 * if the receiver got the request and then reset the connection without answering, and
 * at-least-once allows it: the X-Webhook-Delivery id is the same.
 */
export const postWebhook: PostWebhook = async (url, o) => {
  try {
    return await once(url, o);
  } catch (err) {
    const code = err instanceof FetchError ? err.code : undefined;
    if (o.signal.aborted || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
    return once(url, o);
  }
};
