/**
 * The server's webhook dispatcher, on a worker thread of its own (workers/webhook-dispatcher.ts).
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
 * This side only forwards: start, stop, kick, whenIdle and configure go over as messages; the
 * worker's log lines come back and are written by this process's logger; stats are mirrored.
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
  | { type: 'init'; dataDir: string; config: LiveConfig; options: Omit<DispatcherOptions, 'resolver' | 'send'> }
  | { type: 'kick' | 'start'; config: LiveConfig }
  | { type: 'configure'; config: LiveConfig; options: Omit<DispatcherOptions, 'resolver' | 'send'> }
  | { type: 'whenIdle' | 'stop'; config: LiveConfig; id: number };

/** Messages from the worker. */
export type FromWorker =
  | { type: 'log'; level: Exclude<LogLevel, 'silent'>; msg: string; fields?: LogFields }
  | { type: 'stats'; stats: Stats }
  | { type: 'done'; id: number; stats: Stats };

export class DispatcherThread implements Dispatcher {
  readonly stats: Stats = { sent: 0, delivered: 0, failed: 0 };
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, () => void>();
  /** configure() before start(): applied when the worker starts */
  private options: Omit<DispatcherOptions, 'resolver' | 'send'> = { pumpDelayMs: PUMP_DELAY_MS };
  private restartTimer: NodeJS.Timeout | undefined;
  /** start() was called and stop() was not: the thread runs once there is work */
  private running = false;

  constructor(
    private readonly deps: {
      dataDir: string;
      config: LiveConfig;
      log: Logger;
      hasPending: () => boolean;
      /** WEBHOOK_CLAIM_LEASE_MS, when set */
      leaseMs?: number;
    },
  ) {
    if (deps.leaseMs !== undefined) this.options.leaseMs = deps.leaseMs;
  }

  /** Whether the thread exists now (it starts with the first work, see above). */
  get threadRunning(): boolean {
    return this.worker !== undefined;
  }

  private live(): LiveConfig {
    return { webhookAllowPrivate: this.deps.config.webhookAllowPrivate, mediaUrl: this.deps.config.mediaUrl };
  }

  private send(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.deps.hasPending()) this.spawn();
  }

  private spawn(): void {
    if (this.worker || !this.running) return;
    const worker = new Worker(TS_ENTRY, { execArgv: workerExecArgv(WORKER), workerData: { entry: WORKER } });
    this.worker = worker;
    worker.on('message', (m: FromWorker) => this.receive(m));
    worker.on('error', (err) => this.deps.log.error('webhook dispatcher thread failed', { err }));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const done of this.waiting.values()) done();
      this.waiting.clear();
      if (!this.running) return; // stopped
      this.deps.log.error('webhook dispatcher thread exited; starting it again', { code });
      this.restartTimer = setTimeout(() => this.spawn(), RESTART_DELAY_MS);
      this.restartTimer.unref();
    });
    this.send({ type: 'init', dataDir: this.deps.dataDir, config: this.live(), options: this.options });
    this.send({ type: 'start', config: this.live() });
  }

  private receive(m: FromWorker): void {
    if (m.type === 'log') this.deps.log[m.level](m.msg, m.fields);
    else {
      Object.assign(this.stats, m.stats);
      if (m.type === 'done') {
        this.waiting.get(m.id)?.();
        this.waiting.delete(m.id);
      }
    }
  }

  /** Asks the worker and resolves on its answer (at once when it is not running). */
  private ask(type: 'whenIdle' | 'stop'): Promise<void> {
    if (!this.worker) return Promise.resolve();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ type, id, config: this.live() });
    });
  }

  kick(): void {
    if (!this.worker) return this.spawn(); // starts with a pass over what is due
    this.send({ type: 'kick', config: this.live() });
  }

  configure(options: Omit<DispatcherOptions, 'resolver' | 'send'>): void {
    this.options = { ...this.options, ...options };
    this.send({ type: 'configure', config: this.live(), options });
  }

  whenIdle(): Promise<void> {
    return this.ask('whenIdle');
  }

  /** Stops sending (in-flight sends are handed back unsent, results written), then ends the thread. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    await this.ask('stop');
    this.worker = undefined;
    await worker.terminate();
  }
}
