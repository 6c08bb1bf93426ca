/**
 * Sends queued webhook deliveries (decisions §8).
 *
 * - Deliveries are rows committed with the post change (see `attachFanOut`), so nothing is lost
 *   across a restart: whatever is still pending is sent when a dispatcher next runs.
 * - Per webhook, only the oldest pending delivery is ever sent, one at a time: events arrive in
 *   order. Webhooks are independent: each runs its own request, so a slow receiver delays no other.
 * - A failure (3xx, 4xx, 5xx, time-out, network error, refused address, template error) is retried
 *   with backoff; every attempt counts toward the webhook's consecutive failures, and the third
 *   suspends it: that delivery ends `failed`, everything else queued for it is `dropped`, and no
 *   new events are queued until the owner re-activates it (see WebhookRepository.recordAttempt).
 * - Delivery is at least once: an attempt cut short by shutdown (or a crash) is sent again later
 *   with the same X-Webhook-Delivery id, which receivers can use to recognise the repeat.
 */
import crypto from 'node:crypto';
import fetch from 'node-fetch';
import type { Logger } from '../log.ts';
import type { Outbox, OutboxRow } from '../outbox/outbox.ts';
import { eventDataFromOutbox } from './event-data.ts';
import type { AttemptRow, DeliveryRow, WebhookRepository, WebhookRow } from './repository.ts';
import { renderBody } from './service.ts';
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
/** Stored error messages are for people; keep them short. */
const clip = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export const signBody = (body: string, secret: string): string => crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

interface Outcome {
  outcome: 'success' | 'failure';
  responseStatus: number | null;
  error: string | null;
}
/** The attempt was cut short by shutdown: no outcome to record. */
const INTERRUPTED = Symbol('interrupted');

export class WebhookDispatcher {
  private timeoutMs: number;
  private pollMs: number;
  private retryDelaysMs: number[];
  private concurrency: number;
  private readonly agents: TargetAgents;
  /** Identifies this process's claims in SQLite. */
  private readonly claimant = crypto.randomUUID();
  private readonly inFlight = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  private stopped = true;
  private pumpScheduled = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
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
    if (opts.pollMs !== undefined) {
      this.pollMs = opts.pollMs;
      if (!this.stopped) {
        clearInterval(this.pollTimer);
        this.pollTimer = setInterval(() => this.kick(), this.pollMs);
        this.pollTimer.unref();
      }
    }
  }

  /** Queues deliveries in the post-change transaction, then wakes the dispatcher after the commit. */
  attachFanOut(outbox: Outbox): void {
    outbox.subscribe((row: OutboxRow) => {
      // No initiator means no API call made the change (an import): decisions §8 fires events
      // for POST/PUT/PATCH/DELETE only, and a bulk import must not flood every receiver.
      if (row.event === 'reindex' || row.initiatorId === null) return;
      // better-sqlite3 transactions are synchronous: by the time this runs, the change has
      // committed (or rolled back, and then there is simply nothing new to send).
      if (this.deps.repo.enqueue(row) > 0) setImmediate(() => this.kick());
    });
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
    this.agents.destroy();
    this.resolveIdle();
  }

  /** Looks for due deliveries soon; cheap to call often (calls coalesce). */
  kick(): void {
    if (this.stopped || this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Resolves once nothing is in flight or due (tests). Scheduled retries do not count as due. */
  whenIdle(): Promise<void> {
    if (this.inFlight.size === 0 && !this.pumpScheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private resolveIdle(): void {
    if (this.inFlight.size > 0 || this.pumpScheduled) return;
    const waiters = this.idleWaiters.splice(0);
    for (const w of waiters) w();
  }

  private pump(): void {
    if (this.stopped) return;
    let claimed: DeliveryRow[] = [];
    try {
      claimed = this.deps.repo.claimDue({
        limit: this.concurrency - this.inFlight.size,
        busy: new Set(this.inFlight.keys()),
        claimant: this.claimant,
        // A claim outlives the longest attempt, so only a crashed process's claims ever expire.
        leaseMs: this.timeoutMs + 30_000,
      });
    } catch (err) {
      // SQLITE_BUSY from another process's write, say: the next poll tries again.
      this.deps.log.warn('webhook dispatcher could not claim deliveries', { err: (err as Error).message });
    }
    for (const delivery of claimed) {
      const abort = new AbortController();
      const promise = this.deliver(delivery, abort.signal)
        .catch((err) => this.deps.log.error('webhook delivery crashed', { deliveryId: delivery.id, err }))
        .finally(() => {
          this.inFlight.delete(delivery.webhookId);
          this.kick(); // this webhook's next event, or a webhook waiting for a free slot
          this.resolveIdle();
        });
      this.inFlight.set(delivery.webhookId, { promise, abort });
    }
    this.scheduleRetryWake();
    this.resolveIdle();
  }

  /** Wakes exactly when the earliest retry falls due, rather than at the next poll. */
  private scheduleRetryWake(): void {
    clearTimeout(this.retryTimer);
    const at = this.deps.repo.nextRetryAt();
    if (at === undefined || this.stopped) return;
    this.retryTimer = setTimeout(() => this.kick(), Math.max(0, Math.min(at - Date.now() + 5, 2 ** 31 - 1)));
    this.retryTimer.unref();
  }

  private async deliver(d: DeliveryRow, signal: AbortSignal): Promise<void> {
    const { repo, outbox, log } = this.deps;
    const hook = repo.get(d.webhookId);
    const row = outbox.get(d.outboxId);
    if (!hook || hook.state !== 'active' || !row || row.event === 'reindex') return repo.release(d.seq, this.claimant);

    const started = Date.now();
    const result = await this.attempt(hook, row, d, signal);
    if (result === INTERRUPTED) {
      // Shutdown, not the receiver's fault: leave no trace, the delivery stays pending.
      repo.release(d.seq, this.claimant);
      return;
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
    const state = repo.recordAttempt(d, attempt, {
      suspendAfter: SUSPEND_AFTER_FAILURES,
      retryDelayMs: (n) => this.retryDelaysMs[Math.min(n, this.retryDelaysMs.length) - 1],
    });
    const fields = { webhookId: hook.id, deliveryId: d.id, event: row.event, status: result.responseStatus, error: result.error, ms: attempt.durationMs };
    if (result.outcome === 'success') log.debug('webhook delivered', fields);
    else if (state === 'suspended') log.warn('webhook suspended after consecutive failures', fields);
    else log.info('webhook delivery failed; will retry', fields);
  }

  /** One invocation; never throws. */
  private async attempt(hook: WebhookRow, row: OutboxRow, d: DeliveryRow, signal: AbortSignal): Promise<Outcome | typeof INTERRUPTED> {
    const failure = (error: string, responseStatus: number | null = null): Outcome => ({ outcome: 'failure', responseStatus, error: clip(error) });
    let body: string;
    try {
      // Rendered now, with the template as it is now: an edited template applies to queued events.
      body = renderBody(hook.template, eventDataFromOutbox(row, d.initiatorName, this.deps.config.mediaUrl));
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
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const onStop = () => timeout.abort();
    signal.addEventListener('abort', onStop, { once: true });
    try {
      const res = await fetch(url.href, {
        method: 'POST',
        body,
        redirect: 'manual',
        agent: (u: URL) => this.agents.forUrl(u),
        signal: timeout.signal,
        compress: false,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          'X-Signature': signBody(body, hook.secret),
          'X-Webhook-Event': row.event,
          'X-Webhook-Delivery': d.id,
        },
      });
      // The response body is of no interest; drop it rather than let a receiver stream at us.
      res.body?.on('error', () => {});
      (res.body as unknown as { destroy?: () => void } | null)?.destroy?.();
      if (res.status >= 200 && res.status < 300) return { outcome: 'success', responseStatus: res.status, error: null };
      if (res.status >= 300 && res.status < 400) return failure(`redirect (HTTP ${res.status}) not followed`, res.status);
      return failure(`HTTP ${res.status}`, res.status);
    } catch (err) {
      if (signal.aborted) return INTERRUPTED;
      if (timeout.signal.aborted) return failure(`timed out after ${this.timeoutMs} ms`);
      const e = err as Error & { code?: string; cause?: Error };
      return failure(describeNetworkError(e));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
    }
  }
}

/** node-fetch wraps the socket error; the cause (or our refusal) is what the owner needs to see. */
function describeNetworkError(e: Error & { code?: string; erroredSysCall?: string }): string {
  const message = e.message.replace(/^request to \S+ failed, reason: /, '');
  if (/refused to connect to/.test(message)) return `refused: ${message}`;
  return e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
