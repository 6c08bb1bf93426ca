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
 * One POST under way: what its listeners and timers need, kept on one object rather than in
 * closures made per request (a lane sends hundreds back to back; the listeners and timer callbacks
 * below are shared by all of them and find their request through it).
 */
interface Sending {
  url: URL;
  o: SendOptions;
  resolve: (status: number) => void;
  reject: (err: Error) => void;
  req: http.ClientRequest;
  timer: NodeJS.Timeout | undefined;
  drainTimer: NodeJS.Timeout | undefined;
  /** the response's status, once its headers are in: the outcome is known from then on */
  status: number | undefined;
  /** response body bytes read */
  read: number;
  settled: boolean;
  /** sent once more on a fresh connection already (see postWebhook) */
  retried: boolean;
  /** the requests under way with the same signal (see track) */
  list: UnderWay | undefined;
  prev: Sending | undefined;
  next: Sending | undefined;
}

const SENDING = Symbol('webhook send');
type WithSending = { [SENDING]?: Sending };

/**
 * The requests under way per signal, with one abort listener per signal: a lane sends hundreds of
 * requests under one signal, and adding and removing an EventTarget listener for each cost more
 * than the rest of the request's bookkeeping. A list linked through the requests themselves, not
 * a Set of them: adding each request to a Set and taking it out again cost a visible share of a
 * send's CPU in the drain bench (bench/notes/webhook-drain.md).
 */
interface UnderWay {
  head: Sending | undefined;
}
const underWay = new WeakMap<AbortSignal, UnderWay>();

function abortAll(this: AbortSignal): void {
  const list = underWay.get(this);
  if (!list) return;
  const all: Sending[] = [];
  for (let s = list.head; s; s = s.next) all.push(s);
  for (const s of all) {
    finish(s, this.reason instanceof Error ? this.reason : new Error('aborted'));
    s.req.destroy();
  }
}

function track(s: Sending): void {
  let list = underWay.get(s.o.signal);
  if (!list) {
    s.o.signal.addEventListener('abort', abortAll, { once: true });
    underWay.set(s.o.signal, (list = { head: undefined }));
  }
  s.list = list;
  s.next = list.head;
  if (list.head) list.head.prev = s;
  list.head = s;
}

function untrack(s: Sending): void {
  const list = s.list;
  if (!list) return;
  if (s.prev) s.prev.next = s.next;
  else list.head = s.next;
  if (s.next) s.next.prev = s.prev;
  s.list = s.prev = s.next = undefined;
}

function finish(s: Sending, err: Error | undefined, status = 0): void {
  if (s.settled) return;
  const e = err as (NodeJS.ErrnoException & { reused?: boolean }) | undefined;
  // A receiver may close an idle keep-alive connection just as we reuse it: see postWebhook.
  if (
    e &&
    s.status === undefined &&
    !s.retried &&
    s.req.reusedSocket &&
    !s.o.signal.aborted &&
    (e.code === 'ECONNRESET' || e.code === 'EPIPE')
  ) {
    clearTimeout(s.timer);
    s.retried = true;
    start(s);
    return;
  }
  s.settled = true;
  clearTimeout(s.timer);
  clearTimeout(s.drainTimer);
  untrack(s);
  if (err) s.reject(err);
  else s.resolve(status);
}

function onTimeout(s: Sending): void {
  finish(s, new SendTimeoutError(`timed out after ${s.o.timeoutMs} ms`));
  s.req.destroy();
}

function onRequestError(this: http.ClientRequest & WithSending, err: Error): void {
  const s = this[SENDING]!;
  if (s.req !== this) return; // a request given up for a retry (see finish)
  // After the headers, the outcome is known: a connection lost while draining the body changes nothing.
  if (s.status === undefined) finish(s, err);
  else finish(s, undefined, s.status);
}

/**
 * The status decides the outcome; the body is of no interest. It is read to its end (a few bytes,
 * normally) so the connection is back in the pool before the next send: resolving at the headers
 * made the next delivery open a new connection while this one was still busy. A receiver that
 * streams a large body, or dawdles over it, loses its connection.
 */
function onResponse(this: http.ClientRequest & WithSending, res: http.IncomingMessage & WithSending): void {
  const s = this[SENDING]!;
  if (s.req !== this) return;
  clearTimeout(s.timer);
  s.timer = undefined;
  s.status = res.statusCode ?? 0;
  res[SENDING] = s;
  s.drainTimer = setTimeout(destroyResponse, MAX_DRAIN_MS, res);
  res.on('data', onResponseData);
  res.on('end', onResponseDone);
  res.on('close', onResponseDone);
  res.on('error', ignore);
}

function destroyResponse(res: http.IncomingMessage): void {
  res.destroy();
}

function onResponseData(this: http.IncomingMessage & WithSending, chunk: Buffer): void {
  const s = this[SENDING]!;
  s.read += chunk.length;
  if (s.read > MAX_DRAIN_BYTES) this.destroy();
}

function onResponseDone(this: http.IncomingMessage & WithSending): void {
  const s = this[SENDING]!;
  finish(s, undefined, s.status);
}

function ignore(): void {}

/** Sends `s`'s request (again, after a reset on a reused connection). */
function start(s: Sending): void {
  const { module, options } = target(s.url);
  const o = s.o;
  const req = module.request({
    protocol: options.protocol,
    hostname: options.hostname,
    port: options.port,
    path: options.path,
    auth: options.auth,
    method: 'POST',
    agent: o.agent,
    headers: o.headers,
  }) as http.ClientRequest & WithSending;
  req[SENDING] = s;
  s.req = req;
  s.timer = setTimeout(onTimeout, o.timeoutMs, s);
  req.on('error', onRequestError);
  req.on('response', onResponse);
  req.end(o.body, 'utf8');
}

/**
 * POSTs the body; resolves with the status, rejects with the network error (or SendTimeoutError).
 * A receiver may close an idle keep-alive connection just as we reuse it; that request never
 * reached it, so it is sent once more on a fresh connection (as Node's documentation advises)
 * rather than counted as the receiver's failure. A repeat is possible only if the receiver got
 * the request and then reset the connection without answering, and at-least-once allows it: the
 * X-Webhook-Delivery id is the same.
 */
export const postWebhook: PostWebhook = (url, o) => {
  o.headers['Content-Length'] = String(Buffer.byteLength(o.body, 'utf8'));
  let resolve!: (status: number) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<number>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const s: Sending = {
    url,
    o,
    resolve,
    reject,
    req: undefined as unknown as http.ClientRequest,
    timer: undefined,
    drainTimer: undefined,
    status: undefined,
    read: 0,
    settled: false,
    retried: false,
    list: undefined,
    prev: undefined,
    next: undefined,
  };
  if (o.signal.aborted) {
    reject(o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted'));
    return promise;
  }
  track(s);
  start(s);
  return promise;
};
