/**
 * One webhook POST on undici's `Client`, one kept-alive connection each, pooled here per origin
 * (see ssrf.ts for why reused connections still only ever reach checked addresses).
 *
 * Why undici and not node:http: a backlog drain is bound by the CPU of the dispatcher's thread, and
 * node:http's client (ClientRequest, IncomingMessage and their streams per request) was the
 * largest share of it; undici's `dispatch` with a handler object parses the response in
 * WebAssembly and makes no stream per request, which cost about half as much CPU per POST
 * (bench/notes/webhook-drain.md, "The sends on undici"). Not undici's `request()`/`fetch()`: each
 * wraps the response in a stream, and this POST only needs the status. Not node-fetch, which the
 * design card names: two stream pipelines and Request/Headers/Response objects per delivery
 * (issue 28, bench/notes/image-search.md, "Webhook delivery on node-fetch"); the drain bench
 * keeps measuring it (`--drain-node-fetch`).
 *
 * Connections are pooled here rather than in undici's `Agent`: the retry below must know whether
 * a request went out on a connection that had already served one, which an `Agent` does not say.
 * A connection taken from the idle list is a reused one; a new `Client` is a new connection. A
 * connection that failed in any way (an error, a time-out, a response cut off, a shutdown) is
 * closed, never reused.
 */
import { Client, type buildConnector, type Dispatcher } from 'undici';

export interface SendOptions {
  /** a string is sent as UTF-8 */
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** The connections to send over (ssrf.ts picks them by the address policy). */
  agent: DeliveryConnections;
  /** Until response headers arrive, from the call on (connecting included). */
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

/** Idle connections kept per origin at most (node:http's Agent keeps 256 free sockets per host). */
const MAX_IDLE_PER_ORIGIN = 256;

/** A pooled connection: undici keeps at most one socket per Client. */
interface Connection extends Client {
  /** the pool's idle list it sits in, while idle */
  idleIn?: Connection[] | undefined;
  pool?: DeliveryConnections;
}

/**
 * Kept-alive connections to receivers, per origin. Idle connections are taken last-in first-out,
 * so the ones not needed time out (undici closes a connection idle for `idleMs`, sooner if the
 * receiver announces a shorter Keep-Alive timeout) and are dropped from the pool as they close.
 */
export class DeliveryConnections {
  private readonly idle = new Map<string, Connection[]>();
  private readonly all = new Set<Connection>();
  private closed = false;

  constructor(
    private readonly connect: buildConnector.connector,
    private readonly idleMs: number,
  ) {}

  /** An idle connection to `origin` (reused: true), or a new one. */
  take(origin: string, fresh: boolean): { c: Connection; reused: boolean } {
    const list = fresh ? undefined : this.idle.get(origin);
    const c = list?.pop();
    if (c) {
      c.idleIn = undefined;
      return { c, reused: true };
    }
    const made = new Client(origin, {
      connect: this.connect,
      // Idle for at most idleMs, sooner when the receiver announces a shorter Keep-Alive timeout (then a second
      // before it, as node:http's Agent does).
      keepAliveTimeout: this.idleMs,
      keepAliveMaxTimeout: this.idleMs,
      keepAliveTimeoutThreshold: 1000,
      // Our own timers: until headers from the call on (connecting included), and the bounded drain.
      headersTimeout: 0,
      bodyTimeout: 0,
      pipelining: 1,
    }) as Connection;
    made.on('disconnect', onDisconnect);
    made.pool = this;
    this.all.add(made);
    if (this.closed) this.discard(made);
    return { c: made, reused: false };
  }

  /** Back to the idle list after a complete exchange. */
  give(origin: string, c: Connection): void {
    if (this.closed || c.destroyed || c.closed) return this.discard(c);
    let list = this.idle.get(origin);
    if (!list) this.idle.set(origin, (list = []));
    if (list.length >= MAX_IDLE_PER_ORIGIN) return this.discard(c);
    c.idleIn = list;
    list.push(c);
  }

  /** Closes a connection now (it may be inside one of undici's callbacks: the Client is destroyed a moment later). */
  discard(c: Connection): void {
    if (c.idleIn) unlist(c);
    if (!this.all.delete(c)) return;
    setImmediate(destroyConnection, c);
  }

  /** Closes every connection, idle or busy (requests under way fail). */
  destroy(): void {
    this.closed = true;
    for (const c of [...this.all]) this.discard(c);
    this.idle.clear();
  }
}

function unlist(c: Connection): void {
  const list = c.idleIn!;
  const i = list.indexOf(c);
  if (i !== -1) list.splice(i, 1);
  c.idleIn = undefined;
}

/** An idle connection closed (its idle time-out, or the receiver closed it): it leaves the pool. */
function onDisconnect(this: Connection): void {
  if (this.idleIn) this.pool!.discard(this);
}

function destroyConnection(c: Connection): void {
  c.destroy().catch(ignore);
}

function ignore(): void {}

/**
 * The origin and path a URL comes to, kept per URL object: the dispatcher hands over the same
 * object for every delivery to a webhook (attempt.ts keeps the checked URLs).
 */
const targets = new WeakMap<URL, { origin: string; path: string }>();

function target(url: URL) {
  let t = targets.get(url);
  if (!t) targets.set(url, (t = { origin: url.origin, path: `${url.pathname}${url.search}` }));
  return t;
}

/**
 * One POST under way: undici's handler for it, and what the timers and the shutdown listener
 * need. One object per POST; its methods and the timer callbacks are shared by all of them.
 */
class Sending implements Dispatcher.DispatchHandlers {
  timer: NodeJS.Timeout | undefined = undefined;
  drainTimer: NodeJS.Timeout | undefined = undefined;
  /** the connection this attempt goes over, and whether it had served a request before */
  c: Connection | undefined = undefined;
  reused = false;
  /** undici's abort for the request on its connection, once it is being written */
  abort: ((err?: Error) => void) | undefined = undefined;
  /** the response's status, once its headers are in: the outcome is known from then on */
  status: number | undefined = undefined;
  /** response body bytes read */
  read = 0;
  settled = false;
  /** sent once more on a fresh connection already (see postWebhook) */
  retried = false;
  /** the requests under way with the same signal (see track) */
  list: UnderWay | undefined = undefined;
  prev: Sending | undefined = undefined;
  next: Sending | undefined = undefined;

  constructor(
    readonly url: URL,
    readonly o: SendOptions,
    readonly resolve: (status: number) => void,
    readonly reject: (err: Error) => void,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
  }

  onHeaders(statusCode: number): boolean {
    if (this.settled || statusCode < 200) return true; // 1xx: the answer is still to come
    clearTimeout(this.timer);
    this.timer = undefined;
    this.status = statusCode;
    // A receiver's few bytes of body come with the headers, and undici hands them over and completes in the
    // same turn: the drain's timer is only needed if the body is still to come once that turn's callbacks are done.
    queueMicrotask(() => {
      if (!this.settled) this.drainTimer = setTimeout(onDrainTimeout, MAX_DRAIN_MS, this);
    });
    return true;
  }

  /**
   * The status decides the outcome; the body is of no interest. It is read to its end (a few
   * bytes, normally) so the connection is back in the pool before the next send: resolving at the
   * headers made the next delivery open a new connection while this one was still busy. A
   * receiver that streams a large body, or dawdles over it, loses its connection.
   */
  onData(chunk: Buffer): boolean {
    this.read += chunk.length;
    if (this.read > MAX_DRAIN_BYTES && !this.settled) {
      finish(this, undefined, this.status);
      drop(this);
    }
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    const c = this.c!;
    finish(this, undefined, this.status);
    this.o.agent.give(target(this.url).origin, c);
  }

  onError(err: Error): void {
    if (this.settled) return;
    const c = this.c;
    // After the headers, the outcome is known: a connection lost while draining the body changes nothing.
    if (this.status !== undefined) finish(this, undefined, this.status);
    else finish(this, err);
    if (c) this.o.agent.discard(c);
  }
}

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
    drop(s);
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

/** Ends the request on its connection, and the connection with it. */
function drop(s: Sending): void {
  const c = s.c;
  s.abort?.(new Error('webhook send given up'));
  if (c) s.o.agent.discard(c);
}

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function finish(s: Sending, err: Error | undefined, status = 0): void {
  if (s.settled) return;
  // A receiver may close an idle keep-alive connection just as we reuse it: see postWebhook.
  if (
    err &&
    s.status === undefined &&
    s.reused &&
    !s.retried &&
    !s.o.signal.aborted &&
    RESET_CODES.has((err as NodeJS.ErrnoException).code ?? '')
  ) {
    clearTimeout(s.timer);
    s.retried = true;
    s.o.agent.discard(s.c!);
    start(s, true);
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
  drop(s);
}

function onDrainTimeout(s: Sending): void {
  finish(s, undefined, s.status);
  drop(s);
}

/** Sends `s`'s request (again, on a fresh connection, after a reset on a reused one). */
function start(s: Sending, fresh: boolean): void {
  const t = target(s.url);
  const { c, reused } = s.o.agent.take(t.origin, fresh);
  s.c = c;
  s.reused = reused;
  s.abort = undefined;
  s.timer = setTimeout(onTimeout, s.o.timeoutMs, s);
  c.dispatch({ path: t.path, method: 'POST', headers: s.o.headers, body: s.o.body }, s);
}

/**
 * POSTs the body; resolves with the status, rejects with the network error (or SendTimeoutError).
 * Redirects are not followed (the status is the outcome). A receiver may close an idle keep-alive
 * connection just as we reuse it; that request never reached it, so it is sent once more on a
 * fresh connection rather than counted as the receiver's failure. A repeat is possible only if the
 * receiver got the request and then reset the connection without answering, and at-least-once
 * allows it: the X-Webhook-Delivery id is the same.
 */
export const postWebhook: PostWebhook = (url, o) => {
  let resolve!: (status: number) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<number>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  if (o.signal.aborted) {
    reject(o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted'));
    return promise;
  }
  const s = new Sending(url, o, resolve, reject);
  track(s);
  start(s, false);
  return promise;
};
