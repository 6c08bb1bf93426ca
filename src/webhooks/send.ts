/**
 * One webhook POST over node:http(s) with the dispatcher's keep-alive agents (see ssrf.ts for why
 * reused connections still only ever reach checked addresses). Plain http.request rather than
 * node-fetch, which the design card names: it tells us whether a socket was reused, which the
 * retry below needs, and node-fetch cost much more CPU per delivery (issue 28, measured and
 * profiled in bench/notes/image-search.md, "Webhook delivery on node-fetch"): node-fetch 3 streams
 * every request body and every response
 * through stream.pipeline, and in Node 20 each pipeline makes an AbortController and, when it
 * finishes, an AbortError DOMException with a stack trace; plus its Request, Headers and Response
 * objects per delivery. The drain bench keeps measuring it (`--drain-node-fetch`).
 */
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';

export interface SendOptions {
  body: string;
  /** Content-Length is added to this object. */
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

/**
 * Response bodies are of no interest; this much is read so the connection can be reused, beyond it the connection is
 * dropped.
 */
export const MAX_DRAIN_BYTES = 64 * 1024;
export const MAX_DRAIN_MS = 1000;

/**
 * The request options a URL comes to, kept per URL object: the dispatcher hands over the same
 * object for every delivery to a webhook (attempt.ts keeps the checked URLs), and converting a URL
 * on every request, as http.request does with one, was a visible share of a backlog drain's CPU.
 */
const targets = new WeakMap<URL, { module: typeof http | typeof https; options: http.RequestOptions }>();

function target(url: URL) {
  let t = targets.get(url);
  if (t) return t;
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
  t = { module: url.protocol === 'https:' ? https : http, options: { protocol, hostname, port, path, auth } };
  targets.set(url, t);
  return t;
}

/**
 * The requests under way per signal, with one abort listener per signal: a lane sends hundreds of
 * requests under one signal, and adding and removing an EventTarget listener for each cost more
 * than the rest of the request's bookkeeping.
 */
const underWay = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `onAbort` if `signal` aborts before the returned function is called. */
function onceAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let set = underWay.get(signal);
  if (!set) {
    const requests = new Set<() => void>();
    signal.addEventListener(
      'abort',
      () => {
        for (const abort of [...requests]) abort();
      },
      { once: true },
    );
    underWay.set(signal, (set = requests));
  }
  set.add(onAbort);
  return () => set.delete(onAbort);
}

function once(url: URL, o: SendOptions): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const { module, options } = target(url);
    const headers = o.headers;
    headers['Content-Length'] = String(Buffer.byteLength(o.body, 'utf8'));
    const req = module.request({ ...options, method: 'POST', agent: o.agent, headers });
    let settled = false;
    const finish = (err: Error | undefined, status = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unlisten();
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
    const unlisten = onceAborted(o.signal, onAbort);
    let status: number | undefined;
    // After the headers, the outcome is known: a connection lost while draining the body changes nothing.
    req.on('error', (err) => (status === undefined ? finish(err) : finish(undefined, status)));
    req.on('response', (res) => {
      // The status decides the outcome; the body is of no interest. It is read to its end (a few
      // bytes, normally) so the connection is back in the pool before the next send: resolving
      // at the headers made the next delivery open a new connection while this one was still
      // busy. A receiver that streams a large body, or dawdles over it, loses its connection.
      clearTimeout(timer);
      status = res.statusCode ?? 0;
      const done = () => {
        clearTimeout(drainTimer);
        finish(undefined, status);
      };
      const drainTimer = setTimeout(() => res.destroy(), MAX_DRAIN_MS);
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_DRAIN_BYTES) res.destroy();
      });
      res.on('end', done);
      res.on('close', done);
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
export const postWebhook: PostWebhook = async (url, o) => {
  try {
    return (await once(url, o)).status;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { reused?: boolean };
    if (!e.reused || o.signal.aborted || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw err;
    return (await once(url, o)).status;
  }
};
