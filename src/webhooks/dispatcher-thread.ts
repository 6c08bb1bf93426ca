/**
 * The server's webhook dispatcher, on worker threads of its own (workers/webhook-dispatcher.ts).
 *
 * Why a thread: a webhook's deliveries go out one at a time, in order (docs/decisions.md §8), so its rate is
 * one delivery per round trip, and every round trip waits for a turn of the event loop that sends
 * it. On the thread that also serves HTTP, a busy server made each turn slow: under a 50-client mixed
 * load, events reached their receivers tens of seconds after the write's response, while the same
 * dispatcher drains thousands per second on an idle loop (bench/notes/issue-16.md). Its own loop, its own SQLite
 * connection (WAL; leases already keep several senders apart), the same WebhookDispatcher class.
 *
 * The thread starts with the first thing to send (a kick, or deliveries pending at start-up), not
 * with the server: a server whose webhooks see no traffic does not hold its memory.
 *
 * Several threads (WEBHOOK_DISPATCHER_THREADS; one by default): a dispatcher is CPU-bound on its one
 * loop under a backlog (rendering, signing, the HTTP client and the durable record of every
 * attempt), so more threads can drain several webhooks faster where cores are to spare; on a busy
 * two-core box, two drained slower than one (bench/webhook-drain.ts, `threads`). Each thread is a whole dispatcher with
 * its own connection and claimant; the lease on a webhook's oldest pending delivery keeps a webhook with one thread at
 * a time, so its events still go out one at a time, in order, and each thread takes at most its
 * share of the webhooks that are due (DispatcherOptions.sharedBy), so a backlog is split between
 * them rather than taken whole by the first to look.
 *
 * This side only forwards: start, stop, kick, whenIdle and configure go over as messages to every
 * thread; the workers' log lines come back and are written by this process's logger; stats are
 * mirrored and summed.
 * `webhookAllowPrivate` and `mediaUrl` are read from the live config object and sent along with
 * every message, so a change to them reaches the next send (tests flip them at run time).
 */
import { Worker } from 'node:worker_threads';
import type { Logger, LogFields, LogLevel } from '../log.ts';
import { workerExecArgv } from '../util/worker-exec-argv.ts';
import type { Dispatcher, DispatcherOptions, WebhookDispatcher } from './dispatcher.ts';

const WORKER = new URL('../../workers/webhook-dispatcher.ts', import.meta.url).pathname;
const TS_ENTRY = new URL('../../workers/ts-entry.cjs', import.meta.url);
/**
 * The thread's passes over due deliveries wait this long after a kick (DispatcherOptions.pumpDelayMs).
 * Its writes take the database's one write lock, and a server request that needs it then waits in
 * SQLite's busy handler, which sleeps on the HTTP thread; one pass per lane that finished (hundreds
 * a second under a mixed load) made reads slower at p99 too. At most this much is added to an
 * event's delivery.
 */
const PUMP_DELAY_MS = 20;
/** A worker that died on its own is started again after this long (its claims expire by lease). */
const RESTART_DELAY_MS = 1000;

export interface LiveConfig {
  webhookAllowPrivate: boolean;
  mediaUrl: string;
}

type Stats = WebhookDispatcher['stats'];

/** Messages to the worker. */
export type ToWorker =
  | {
      type: 'init';
      dataDir: string;
      config: LiveConfig;
      options: Omit<DispatcherOptions, 'resolver' | 'send'>;
      /** Lines below it are dropped in the worker rather than sent over (at debug, one per batch of results). */
      logLevel: LogLevel;
    }
  | { type: 'kick' | 'start'; config: LiveConfig }
  | { type: 'configure'; config: LiveConfig; options: Omit<DispatcherOptions, 'resolver' | 'send'> }
  | { type: 'whenIdle' | 'stop'; config: LiveConfig; id: number };

/** Messages from the worker. */
export type FromWorker =
  | { type: 'log'; level: Exclude<LogLevel, 'silent'>; msg: string; fields?: LogFields }
  | { type: 'stats'; stats: Stats }
  | { type: 'done'; id: number; stats: Stats };

export class DispatcherThread implements Dispatcher {
  /** The threads' counters, summed. */
  readonly stats: Stats = { sent: 0, delivered: 0, failed: 0, madeAhead: 0 };
  /** The running workers by slot (0 … threads - 1), and each one's counters. */
  private readonly workers = new Map<number, Worker>();
  private readonly workerStats = new Map<number, Stats>();
  private nextId = 1;
  /** Answers awaited, by message id, with the slot of the worker asked. */
  private readonly waiting = new Map<number, { slot: number; done: () => void }>();
  /** configure() before start(): applied when the workers start */
  private options: Omit<DispatcherOptions, 'resolver' | 'send'>;
  private readonly restartTimers = new Set<NodeJS.Timeout>();
  /** start() was called and stop() was not: the threads run once there is work */
  private running = false;
  private readonly threads: number;

  constructor(
    private readonly deps: {
      dataDir: string;
      config: LiveConfig;
      log: Logger;
      hasPending: () => boolean;
      /** WEBHOOK_CLAIM_LEASE_MS, when set */
      leaseMs?: number;
      /** WEBHOOK_DISPATCHER_THREADS: how many threads share the webhooks (default 1) */
      threads?: number;
      /** The logger's level (LOG_LEVEL); default debug: every line is sent over */
      logLevel?: LogLevel;
    },
  ) {
    this.threads = Math.max(1, deps.threads ?? 1);
    this.options = { pumpDelayMs: PUMP_DELAY_MS, sharedBy: this.threads };
    if (deps.leaseMs !== undefined) this.options.leaseMs = deps.leaseMs;
  }

  /** Whether the threads exist now (they start with the first work, see above). */
  get threadRunning(): boolean {
    return this.workers.size > 0;
  }

  private live(): LiveConfig {
    return { webhookAllowPrivate: this.deps.config.webhookAllowPrivate, mediaUrl: this.deps.config.mediaUrl };
  }

  private broadcast(message: ToWorker): void {
    for (const worker of this.workers.values()) worker.postMessage(message);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.deps.hasPending()) this.spawn();
  }

  /** Starts every thread that is not running. */
  private spawn(): void {
    if (!this.running) return;
    for (let slot = 0; slot < this.threads; slot++) if (!this.workers.has(slot)) this.spawnOne(slot);
  }

  private spawnOne(slot: number): void {
    const worker = new Worker(TS_ENTRY, { execArgv: workerExecArgv(WORKER), workerData: { entry: WORKER } });
    this.workers.set(slot, worker);
    worker.on('message', (m: FromWorker) => this.receive(slot, m));
    worker.on('error', (err) => this.deps.log.error('webhook dispatcher thread failed', { err }));
    worker.on('exit', (code) => {
      if (this.workers.get(slot) !== worker) return;
      this.workers.delete(slot);
      for (const [id, w] of this.waiting)
        if (w.slot === slot) {
          this.waiting.delete(id);
          w.done();
        }
      if (!this.running) return; // stopped
      this.deps.log.error('webhook dispatcher thread exited; starting it again', { code });
      const timer = setTimeout(() => {
        this.restartTimers.delete(timer);
        if (this.running && !this.workers.has(slot)) this.spawnOne(slot);
      }, RESTART_DELAY_MS);
      timer.unref();
      this.restartTimers.add(timer);
    });
    const init: ToWorker = {
      type: 'init',
      dataDir: this.deps.dataDir,
      config: this.live(),
      options: { ...this.options, shareIndex: slot },
      logLevel: this.deps.logLevel ?? 'debug',
    };
    worker.postMessage(init);
    worker.postMessage({ type: 'start', config: this.live() });
  }

  private receive(slot: number, m: FromWorker): void {
    if (m.type === 'log') this.deps.log[m.level](m.msg, m.fields);
    else {
      this.workerStats.set(slot, m.stats);
      const sum: Stats = { sent: 0, delivered: 0, failed: 0, madeAhead: 0 };
      for (const s of this.workerStats.values()) {
        sum.sent += s.sent;
        sum.delivered += s.delivered;
        sum.failed += s.failed;
        sum.madeAhead += s.madeAhead;
      }
      Object.assign(this.stats, sum);
      if (m.type === 'done') {
        this.waiting.get(m.id)?.done();
        this.waiting.delete(m.id);
      }
    }
  }

  /** Asks every worker and resolves on all their answers (at once when none is running). */
  private async ask(type: 'whenIdle' | 'stop'): Promise<void> {
    await Promise.all(
      [...this.workers].map(
        ([slot, worker]) =>
          new Promise<void>((resolve) => {
            const id = this.nextId++;
            this.waiting.set(id, { slot, done: resolve });
            worker.postMessage({ type, id, config: this.live() });
          }),
      ),
    );
  }

  kick(): void {
    if (this.workers.size < this.threads) this.spawn(); // a new thread starts with a pass over what is due
    this.broadcast({ type: 'kick', config: this.live() });
  }

  configure(options: Omit<DispatcherOptions, 'resolver' | 'send'>): void {
    this.options = { ...this.options, ...options };
    this.broadcast({ type: 'configure', config: this.live(), options });
  }

  whenIdle(): Promise<void> {
    return this.ask('whenIdle');
  }

  /** Stops sending (in-flight sends are handed back unsent, results written), then ends the threads. */
  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.restartTimers) clearTimeout(timer);
    this.restartTimers.clear();
    if (this.workers.size === 0) return;
    await this.ask('stop');
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
