/**
 * The webhook POST on node-fetch 3 (the client the design card names), with the guarantees of
 * src/webhooks/send.ts: keep-alive node:http agents that connect only to checked addresses (the
 * same filteringLookup; node-fetch hands the agent to http.request), a time-out until headers, a
 * bounded drain of the response, one retry on a reset. Delivery does not use it, since this costs
 * about twice the CPU per delivery of node:http's own request (issue 28,
 * bench/notes/image-search.md), itself about twice undici's (bench/notes/webhook-drain.md); the drain
 * bench runs it beside ours in the same run (`--drain-node-fetch`) so the difference stays measured,
 * e.g. on a newer Node.js or node-fetch.
 */
import http from 'node:http';
import https from 'node:https';
import fetch, { FetchError } from 'node-fetch';
import { filteringLookup } from '../../src/webhooks/ssrf.ts';
import {
  MAX_DRAIN_BYTES,
  MAX_DRAIN_MS,
  SendTimeoutError,
  type PostWebhook,
  type SendOptions,
} from '../../src/webhooks/send.ts';

/**
 * The status decides the outcome; the body is read to its end (a few bytes, normally) so the
 * connection is back in the pool before the next send: resolving at the headers made the next
 * delivery open a new connection while this one was still busy. A receiver that streams a large
 * body, or dawdles over it, loses its connection (destroying node-fetch's body stream destroys
 * the response under it, and with it the socket). A connection lost while draining changes
 * nothing: the status is already known. Resolves false when the body was cut off.
 */
function drain(body: NodeJS.ReadableStream & { destroy(): void }, empty: boolean): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    // No body announced (204, Content-Length: 0, the usual answer): only its end is awaited.
    if (empty) {
      let ended = false;
      body.once('end', () => resolve((ended = true)));
      body.once('close', () => resolve(ended));
      body.once('error', () => resolve(false));
      body.resume();
      return;
    }
    let read = 0;
    let cut = false;
    const cutOff = () => {
      cut = true;
      body.destroy();
    };
    const timer = setTimeout(cutOff, MAX_DRAIN_MS);
    const done = () => {
      clearTimeout(timer);
      resolve(!cut);
    };
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_DRAIN_BYTES) cutOff();
    });
    body.on('end', done);
    body.on('close', done);
    body.on('error', done);
  });
}

/**
 * The time-out until headers aborts a controller that is shared by the sends of one shutdown
 * signal (one per dispatcher lane, whose sends go one at a time): a new AbortController per
 * request, and a listener on the shutdown signal for each, were a measurable part of a delivery's
 * CPU (the cheap fixes tried in issue 28). A controller is replaced once it fired, and once a response was cut off
 * (node-fetch leaves its abort listener on the signal when a response does not end).
 */
/** The bench sends to 127.0.0.1, which never reaches `lookup`; names would be checked as delivery checks them. */
const pool = { keepAlive: true, timeout: 4_000, scheduling: 'lifo', lookup: filteringLookup() } as const;
const agents = { http: new http.Agent(pool as http.AgentOptions), https: new https.Agent(pool as https.AgentOptions) };

const controllers = new WeakMap<AbortSignal, AbortController>();

function controllerFor(shutdown: AbortSignal): AbortController {
  let c = controllers.get(shutdown);
  if (!c) {
    const fresh = new AbortController();
    shutdown.addEventListener('abort', () => fresh.abort(), { once: true });
    controllers.set(shutdown, (c = fresh));
  }
  return c;
}

async function once(url: URL, o: SendOptions): Promise<number> {
  const controller = controllerFor(o.signal);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controllers.delete(o.signal);
    controller.abort();
  }, o.timeoutMs);
  try {
    // compress: false sends no Accept-Encoding (the body is thrown away); redirects are reported, not followed.
    const res = await fetch(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      headers: o.headers,
      body: typeof o.body === 'string' ? o.body : Buffer.from(o.body.buffer, o.body.byteOffset, o.body.byteLength),
      signal: controller.signal,
      compress: false,
      redirect: 'manual',
    });
    clearTimeout(timer);
    const empty = res.status === 204 || res.headers.get('content-length') === '0';
    if (res.body && !(await drain(res.body as unknown as NodeJS.ReadableStream & { destroy(): void }, empty)))
      controllers.delete(o.signal);
    return res.status;
  } catch (err) {
    if (o.signal.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted');
    if (timedOut) throw new SendTimeoutError(`timed out after ${o.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
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
export const postWebhookNodeFetch: PostWebhook = async (url, o) => {
  try {
    return await once(url, o);
  } catch (err) {
    const code = err instanceof FetchError ? err.code : undefined;
    if (o.signal.aborted || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
    return once(url, o);
  }
};
