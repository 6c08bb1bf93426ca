/**
 * Sends queued webhook deliveries (decisions §8).
 *
 * - Deliveries are rows committed with the post change (see fan-out.ts), so nothing is lost
 *   across a restart: whatever is still pending is sent when a dispatcher next runs.
 * - Per webhook, deliveries go out one at a time in queue order, each only after the one before
 *   it succeeded: events arrive in order. A webhook's next few deliveries are claimed together
 *   (a "lane") and sent back to back over a kept-alive connection; results are written in
 *   batches, a few milliseconds behind the sends. Webhooks are independent: each lane runs on
 *   its own, so a slow receiver delays no other.
 * - A failure (3xx, 4xx, 5xx, time-out, network error, refused address, template error) is retried
 *   with backoff; every attempt counts toward the webhook's consecutive failures, and the third
 *   suspends it: that delivery ends `failed`, everything else queued for it is `dropped`, and no
 *   new events are queued until the owner re-activates it (see WebhookRepository.recordAttempt).
 * - Delivery is at least once: an attempt cut short by shutdown (or a crash) is sent again later
 *   with the same X-Webhook-Delivery id, which receivers can use to recognise the repeat. (A
 *   crash also repeats the successes of its last few milliseconds, whose results were not yet
 *   written; a shutdown writes them first.)
 */
import crypto from 'node:crypto';
import type { Logger } from '../log.ts';
import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import { EventBodies } from './event-bodies.ts';
import type { AttemptRow, DeliveryResult, DeliveryRow, DeliveryTarget, WebhookRepository } from './store/webhook-repository.ts';
import { postWebhook, SendTimeoutError } from './send.ts';
import { checkUrlShape, createTargetAgents, type Resolver, type TargetAgents } from './ssrf.ts';

export const SUSPEND_AFTER_FAILURES = 3;

export interface DispatcherOptions {
  /** Per invocation, until response headers arrive (spec §8: 30 s). */
  timeoutMs?: number;
  /** Safety-net polling; new deliveries and reactivations wake the dispatcher at once. */
  pollMs?: number;
  /** Delay before retry n (1-based, = consecutive failures so far); the last entry repeats. */
  retryDelaysMs?: number[];
  /** Webhooks sent to at the same time. */
  concurrency?: number;
  /**
   * How long a kick waits before looking for due deliveries (0: at the next turn of the loop). A
   * pass is a claim transaction plus a result write; a short wait lets the lanes that finish
   * meanwhile, and the events queued meanwhile, share them, which keeps the write lock free for the
   * process's other writers (see dispatcher-thread.ts).
   */
  pumpDelayMs?: number;
  /** Resolver for the connect-time address check (tests inject one). */
  resolver?: Resolver;
}

export interface DispatcherDeps {
  repo: WebhookRepository;
  outbox: Outbox;
  log: Logger;
  /** Read at send time. */
  config: { webhookAllowPrivate: boolean; mediaUrl: string };
}

const USER_AGENT = 'imgpost-webhooks/1';
/** Deliveries of one webhook claimed together and sent back to back (one claim transaction each). */
const LANE_SIZE = 500;
/** Results are written together, this long after the first of them (or at once when the dispatcher idles or stops). */
const WRITE_DELAY_MS = 50;
/** A lane starts no new send that could outlast its claim's lease by less than this. */
const LEASE_MARGIN_MS = 5_000;
/** Stored error messages are for people; keep them short. */
const clip = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * What the server and its tests use of a dispatcher: this class in the process, or
 * DispatcherThread (dispatcher-thread.ts) running it on a thread of its own.
 */
export type Dispatcher = Pick<WebhookDispatcher, 'start' | 'stop' | 'kick' | 'whenIdle' | 'configure' | 'stats'>;

export const signBody = (body: string, secret: string): string => crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

interface Outcome {
  outcome: 'success' | 'failure';
  responseStatus: number | null;
  error: string | null;
}
/** A webhook's deliveries being sent by this process, in order; `next` is the one being sent or next to be. */
interface Lane {
  deliveries: DeliveryRow[];
  next: number;
  leaseEndsAt: number;
}

/** The attempt was cut short by shutdown: no outcome to record. */
const INTERRUPTED = Symbol('interrupted');

export class WebhookDispatcher {
  private timeoutMs: number;
  private pollMs: number;
  private retryDelaysMs: number[];
  private concurrency: number;
  private pumpDelayMs: number;
  private readonly agents: TargetAgents;
  private readonly events: EventBodies;
  /** Identifies this process's claims in SQLite. */
  private readonly claimant = crypto.randomUUID();
  private readonly inFlight = new Map<string, { promise: Promise<void>; abort: AbortController; lane: Lane }>();
  private stopped = true;
  private pumpScheduled = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Results not yet written, in the order they happened. */
  private results: DeliveryResult[] = [];
  private logAfterWrite: (Record<string, unknown> & { outcome: 'success' | 'failure' })[] = [];
  private writeTimer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  readonly stats = { sent: 0, delivered: 0, failed: 0 };

  constructor(
    private readonly deps: DispatcherDeps,
    opts: DispatcherOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 2_000;
    this.retryDelaysMs = opts.retryDelaysMs?.length ? opts.retryDelaysMs : [10_000, 60_000];
    this.concurrency = opts.concurrency ?? 64;
    this.pumpDelayMs = opts.pumpDelayMs ?? 0;
    this.events = new EventBodies(deps.outbox);
    this.agents = createTargetAgents({ allowPrivate: () => deps.config.webhookAllowPrivate, resolver: opts.resolver });
  }

  /**
   * Changes timing at run time. The composition root builds the dispatcher with the spec's
   * values; tests lower them here instead of waiting 30 s for a time-out.
   */
  configure(opts: Omit<DispatcherOptions, 'resolver'>): void {
    if (opts.timeoutMs !== undefined) this.timeoutMs = opts.timeoutMs;
    if (opts.retryDelaysMs?.length) this.retryDelaysMs = opts.retryDelaysMs;
    if (opts.concurrency !== undefined) this.concurrency = opts.concurrency;
    if (opts.pumpDelayMs !== undefined) this.pumpDelayMs = opts.pumpDelayMs;
    if (opts.pollMs !== undefined) {
      this.pollMs = opts.pollMs;
      if (!this.stopped) {
        clearInterval(this.pollTimer);
        this.pollTimer = setInterval(() => this.kick(), this.pollMs);
        this.pollTimer.unref();
      }
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.pollTimer = setInterval(() => this.kick(), this.pollMs);
    this.pollTimer.unref();
    this.kick();
  }

  /**
   * Stops sending: requests under way are aborted and their deliveries handed back unsent, so
   * they go out again (same delivery id) when a dispatcher next runs on this database.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.retryTimer);
    for (const { abort } of this.inFlight.values()) abort.abort(new Error('dispatcher stopping'));
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.promise));
    this.writeResults();
    this.agents.destroy();
    this.resolveIdle();
  }

  /** Looks for due deliveries soon; cheap to call often (calls coalesce). */
  kick(): void {
    if (this.stopped || this.pumpScheduled) return;
    this.pumpScheduled = true;
    const pump = () => {
      this.pumpScheduled = false;
      this.pump();
    };
    if (this.pumpDelayMs > 0) setTimeout(pump, this.pumpDelayMs);
    else setImmediate(pump);
  }

  /** Resolves once nothing is in flight or due and every result is written (tests). Scheduled retries do not count as due. */
  whenIdle(): Promise<void> {
    if (this.inFlight.size === 0 && !this.pumpScheduled) {
      this.writeResults();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private resolveIdle(): void {
    if (this.inFlight.size > 0 || this.pumpScheduled) return;
    this.writeResults();
    const waiters = this.idleWaiters.splice(0);
    for (const w of waiters) w();
  }

  private pump(): void {
    if (this.stopped) return;
    // What finished lanes sent must be on record before their webhooks are claimed again.
    this.writeResults();
    let lanes: DeliveryRow[][] = [];
    const leaseMs = this.leaseMs();
    try {
      lanes = this.deps.repo.claimLanes({
        limit: this.concurrency - this.inFlight.size,
        batch: LANE_SIZE,
        busy: new Set(this.inFlight.keys()),
        claimant: this.claimant,
        leaseMs,
      });
    } catch (err) {
      // SQLITE_BUSY from another process's write, say: the next poll tries again.
      this.deps.log.warn('webhook dispatcher could not claim deliveries', { err: (err as Error).message });
    }
    for (const lane of lanes) {
      const webhookId = lane[0].webhookId;
      const abort = new AbortController();
      const state: Lane = { deliveries: lane, next: 0, leaseEndsAt: Date.now() + leaseMs };
      const promise = this.runLane(state, abort.signal)
        .catch((err) => this.deps.log.error('webhook delivery crashed', { deliveryId: lane[0].id, err }))
        .finally(() => {
          this.inFlight.delete(webhookId);
          this.kick(); // this webhook's next events, or a webhook waiting for a free slot
          this.resolveIdle();
        });
      this.inFlight.set(webhookId, { promise, abort, lane: state });
    }
    this.scheduleRetryWake();
    this.resolveIdle();
  }

  /** A claim outlives the longest attempt, so only a crashed process's claims ever expire. */
  private leaseMs(): number {
    return this.timeoutMs + 30_000;
  }

  /**
   * Sends a lane's deliveries one after another until one does not succeed. The lease moves
   * along with it as results are written (see writeResults); whatever is left unsent needs no
   * lease given back but the head's, and the head is then retried or its webhook suspended.
   */
  private async runLane(lane: Lane, signal: AbortSignal): Promise<void> {
    const { deliveries } = lane;
    try {
      while (lane.next < deliveries.length && !signal.aborted) {
        // Under a slow receiver, stop before the lease could run out mid-send; the rest is claimed afresh.
        if (Date.now() + this.timeoutMs + LEASE_MARGIN_MS > lane.leaseEndsAt && lane.next > 0) break;
        const succeeded = await this.deliver(deliveries[lane.next], signal);
        if (!succeeded) {
          lane.next = deliveries.length; // its result (or release) is queued; nothing further is held
          break;
        }
        lane.next++;
      }
    } finally {
      // Stopped early: the lease may have moved to this one (a write since the last send).
      if (lane.next < deliveries.length) this.results.push({ kind: 'release', seq: deliveries[lane.next].seq });
      lane.next = deliveries.length;
      this.scheduleWrite();
    }
  }

  private scheduleWrite(): void {
    if (this.writeTimer || this.results.length === 0) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      this.writeResults();
    }, WRITE_DELAY_MS);
  }

  /** Writes every pending result in one transaction, in the order they happened. */
  private writeResults(): void {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (this.results.length === 0) return;
    // Each running lane's lease moves on to the delivery it is sending or about to send, in the
    // same transaction that records the ones before it: the webhook's head is always leased.
    for (const { lane } of this.inFlight.values()) {
      if (lane.next < lane.deliveries.length) this.results.push({ kind: 'hold', seq: lane.deliveries[lane.next].seq, until: new Date(lane.leaseEndsAt).toISOString() });
    }
    const results = this.results;
    const logs = this.logAfterWrite;
    let states: ReturnType<WebhookRepository['recordResults']>;
    try {
      states = this.deps.repo.recordResults(results, this.claimant, {
        suspendAfter: SUSPEND_AFTER_FAILURES,
        retryDelayMs: (n) => this.retryDelaysMs[Math.min(n, this.retryDelaysMs.length) - 1],
      });
    } catch (err) {
      // Another process holds the write lock past the busy timeout: keep them and try again.
      this.deps.log.warn('webhook dispatcher could not record delivery results yet', { err: (err as Error).message, results: results.length });
      this.writeTimer = setTimeout(() => this.writeResults(), 1000);
      return;
    }
    this.results = [];
    this.logAfterWrite = [];
    let failures = false;
    for (const [i, r] of results.entries()) {
      if (r.kind !== 'attempt') continue;
      const fields = logs.shift()!;
      if (fields.outcome === 'success') this.deps.log.debug('webhook delivered', fields);
      else if (states[i] === 'suspended') this.deps.log.warn('webhook suspended after consecutive failures', fields);
      else this.deps.log.info('webhook delivery failed; will retry', fields);
      failures ||= fields.outcome === 'failure';
    }
    // A failure scheduled a retry (or a suspension dropped a queue): look again.
    if (failures) this.kick();
  }

  /** Wakes exactly when the earliest retry falls due, rather than at the next poll. */
  private scheduleRetryWake(): void {
    clearTimeout(this.retryTimer);
    const at = this.deps.repo.nextRetryAt();
    if (at === undefined || this.stopped) return;
    this.retryTimer = setTimeout(() => this.kick(), Math.max(0, Math.min(at - Date.now() + 5, 2 ** 31 - 1)));
    this.retryTimer.unref();
  }

  /** Sends one delivery and queues its result; true when it succeeded (the lane goes on). */
  private async deliver(d: DeliveryRow, signal: AbortSignal): Promise<boolean> {
    // Read per delivery, not per lane: an edited template or a suspension applies at once.
    const hook = this.deps.repo.target(d.webhookId);
    const row = this.events.row(d.outboxId);
    if (!hook || hook.state !== 'active' || !row || row.event === 'reindex') {
      this.results.push({ kind: 'release', seq: d.seq });
      return false;
    }

    const started = Date.now();
    const result = await this.attempt(hook, row, d, signal);
    if (result === INTERRUPTED) {
      // Shutdown, not the receiver's fault: leave no trace, the delivery stays pending.
      this.results.push({ kind: 'release', seq: d.seq });
      return false;
    }
    const attempt: AttemptRow = {
      deliveryId: d.id,
      event: row.event,
      postId: row.postId,
      ...result,
      durationMs: Date.now() - started,
      attemptedAt: new Date().toISOString(),
    };
    this.stats.sent++;
    if (result.outcome === 'success') this.stats.delivered++;
    else this.stats.failed++;
    this.results.push({ kind: 'attempt', delivery: d, attempt });
    this.logAfterWrite.push({ webhookId: hook.id, deliveryId: d.id, event: row.event, outcome: result.outcome, status: result.responseStatus, error: result.error, ms: attempt.durationMs });
    this.scheduleWrite();
    return result.outcome === 'success';
  }

  /** One invocation; never throws. */
  private async attempt(hook: DeliveryTarget, row: OutboxRow, d: DeliveryRow, signal: AbortSignal): Promise<Outcome | typeof INTERRUPTED> {
    const failure = (error: string, responseStatus: number | null = null): Outcome => ({ outcome: 'failure', responseStatus, error: clip(error) });
    let body: string;
    try {
      // Rendered now, with the template as it is now: an edited template applies to queued events.
      body = this.events.body(row, d.initiatorName, hook.template, this.deps.config.mediaUrl);
    } catch (err) {
      return failure(`template: ${(err as Error).message.replace(/^template: /, '')}`);
    }
    let url: URL;
    try {
      // IP literals never reach the agent's lookup, so the policy is applied to them here.
      url = checkUrlShape(hook.url, this.deps.config.webhookAllowPrivate);
    } catch (err) {
      return failure(`refused: ${(err as Error).message}`);
    }

    if (signal.aborted) return INTERRUPTED;
    try {
      const status = await postWebhook(url, {
        body,
        agent: this.agents.forUrl(url),
        timeoutMs: this.timeoutMs,
        signal,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          'X-Signature': signBody(body, hook.secret),
          'X-Webhook-Event': row.event,
          'X-Webhook-Delivery': d.id,
        },
      });
      if (status >= 200 && status < 300) return { outcome: 'success', responseStatus: status, error: null };
      if (status >= 300 && status < 400) return failure(`redirect (HTTP ${status}) not followed`, status);
      return failure(`HTTP ${status}`, status);
    } catch (err) {
      if (signal.aborted) return INTERRUPTED;
      if (err instanceof SendTimeoutError) return failure(err.message);
      return failure(describeNetworkError(err as Error & { code?: string }));
    }
  }
}

/** The socket error (or our refusal) is what the owner needs to see. */
function describeNetworkError(e: Error & { code?: string }): string {
  const message = e.message;
  if (/refused to connect to/.test(message)) return `refused: ${message}`;
  return e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
