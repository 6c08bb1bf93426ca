/**
 * Sends queued webhook deliveries (docs/decisions.md §8).
 *
 * - Deliveries are rows committed with the post change (src/kernel/unit-of-work.ts), so nothing is lost
 *   across a restart: whatever is still pending is sent when a dispatcher next runs.
 * - Per webhook, deliveries go out one at a time in queue order, each only after the one before
 *   it succeeded: events arrive in order. A webhook's next few deliveries are claimed together
 *   (a "lane") and sent back to back over a kept-alive connection; results are written in
 *   batches, a few milliseconds behind the sends. Webhooks are
 *   independent: each lane runs on its own, so a slow receiver delays no other.
 * - A failure (3xx, 4xx, 5xx, time-out, network error, refused address, template error) is retried
 *   with backoff; every attempt counts toward the webhook's consecutive failures, and the third
 *   suspends it: that delivery ends `failed`, everything else queued for it is `dropped`, and no
 *   new events are queued until the owner re-activates it (see store/results.ts).
 * - Delivery is at least once: an attempt cut short by shutdown (or a crash) is sent again later
 *   with the same X-Webhook-Delivery id, which receivers can use to recognise the repeat. (A
 *   crash also repeats the successes of its last few milliseconds, whose results were not yet
 *   written; a shutdown writes them first.)
 *
 * This file schedules: passes over due deliveries (on the background loop, util/loop.ts), lanes,
 * and what a shutdown hands back. Sending a lane is lane.ts; one attempt's HTTP side is attempt.ts
 * (and send.ts); writing the results is result-writer.ts; making bodies ahead of the sends is
 * bodies-ahead.ts. All of it runs on one thread (the server gives the dispatcher a thread of its own,
 * dispatcher-thread.ts).
 */
import crypto from 'node:crypto';
import type { Outbox } from '../kernel/outbox.ts';
import type { Logger } from '../log.ts';
import { Loop } from '../util/loop.ts';
import type { AttemptContext } from './attempt.ts';
import { BodiesAhead, laneBodies } from './bodies-ahead.ts';
import { EventBodies } from './event-bodies.ts';
import { type Lane, type LaneContext, runLane } from './lane.ts';
import type { DeliveryResult, DeliveryRow, WebhookRepository } from '../webhook-store/webhook-repository.ts';
import { ResultWriter, SUSPEND_AFTER_FAILURES } from './result-writer.ts';
import { postWebhook, type PostWebhook } from './send.ts';
import { createTargetAgents, type Resolver, type TargetAgents } from './ssrf.ts';

export interface DispatcherOptions {
  /** Per invocation, until response headers arrive (docs/decisions.md §8: 30 s). */
  timeoutMs?: number;
  /** Safety-net polling; new deliveries and reactivations wake the dispatcher at once. */
  pollMs?: number;
  /** Delay before retry n (1-based, = consecutive failures so far); the last entry repeats. */
  retryDelaysMs?: number[];
  /** Webhooks sent to at the same time. */
  concurrency?: number;
  /** Deliveries claimed per lane (default LANE_SIZE; tests lower it to see lanes end and start). */
  laneSize?: number;
  /**
   * How long a claimed lane stays claimed (default: the time-out plus 30 s, which outlives every
   * attempt, so only a crashed process's claims ever expire). What a crash had claimed waits this long.
   */
  leaseMs?: number;
  /**
   * How long a kick waits before looking for due deliveries (0: at the next turn of the loop). A
   * pass is a claim transaction plus a result write; a short wait lets the lanes that finish
   * meanwhile, and the events queued meanwhile, share them, which keeps the write lock free for the
   * process's other writers (see dispatcher-thread.ts).
   */
  pumpDelayMs?: number;
  /**
   * How many dispatchers (threads) share this database's webhooks: each runs at most its share of
   * the due ones (see DeliveryTable.claimLanes). 1: this one takes whatever is due.
   */
  sharedBy?: number;
  /** Which of the `sharedBy` dispatchers this is (0-based): it prefers some templates' webhooks (claimLanes). */
  shareIndex?: number;
  /** Resolver for the connect-time address check (tests inject one). */
  resolver?: Resolver;
  /** The HTTP client (send.ts); the drain bench passes node-fetch's to compare the two. */
  send?: PostWebhook;
}

export interface DispatcherDeps {
  repo: WebhookRepository;
  outbox: Outbox;
  log: Logger;
  /** Read at send time. */
  config: AttemptContext['config'];
}

/**
 * Deliveries of one webhook claimed together and sent back to back (one claim transaction each). At a
 * lane's end its webhook waits for the results written so far and a new claim; under a backlog every
 * lane ends at about the same time, so larger lanes pause the drain less often (2,000 against 500:
 * about 3 % faster, bench/notes/webhook-drain.md). A lane never outlives its lease (lane.ts).
 */
const LANE_SIZE = 2000;
/** The longest timer Node keeps (a retry further out is looked at again by the poll first). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What the server and its tests use of a dispatcher: this class in the process, or
 * DispatcherThread (dispatcher-thread.ts) running it on a thread of its own.
 */
export type Dispatcher = Pick<WebhookDispatcher, 'start' | 'stop' | 'kick' | 'whenIdle' | 'configure' | 'stats'>;

export class WebhookDispatcher {
  private timeoutMs: number;
  private pollMs: number;
  private retryDelaysMs: number[];
  private concurrency: number;
  private readonly laneSize: number;
  private pumpDelayMs: number;
  private sharedBy: number;
  private shareIndex: number | undefined;
  private leaseOverrideMs: number | undefined;
  private readonly agents: TargetAgents;
  private readonly send: PostWebhook;
  private readonly events: EventBodies;
  /** Identifies this process's claims in SQLite. */
  private readonly claimant = crypto.randomUUID();
  private readonly inFlight = new Map<string, { promise: Promise<void>; abort: AbortController; lane: Lane }>();
  private readonly loop: Loop;
  private readonly writer: ResultWriter;
  private readonly ahead: BodiesAhead;
  /** A pass is under way (it waits for the result writes before it claims). */
  private pumping = false;
  private idleWaiters: (() => void)[] = [];
  private readonly lane: LaneContext;
  /** Attempts made, succeeded and failed; madeAhead: attempts whose body was made ahead (bodies-ahead.ts). */
  readonly stats = { sent: 0, delivered: 0, failed: 0, madeAhead: 0 };

  constructor(
    private readonly deps: DispatcherDeps,
    opts: DispatcherOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 2_000;
    this.retryDelaysMs = opts.retryDelaysMs?.length ? opts.retryDelaysMs : [10_000, 60_000];
    this.concurrency = opts.concurrency ?? 64;
    this.laneSize = opts.laneSize ?? LANE_SIZE;
    this.pumpDelayMs = opts.pumpDelayMs ?? 0;
    this.sharedBy = opts.sharedBy ?? 1;
    this.shareIndex = opts.shareIndex;
    this.leaseOverrideMs = opts.leaseMs;
    this.events = new EventBodies(deps.outbox);
    this.send = opts.send ?? postWebhook;
    this.agents = createTargetAgents({ allowPrivate: () => deps.config.webhookAllowPrivate, resolver: opts.resolver });
    this.ahead = new BodiesAhead(this.events);
    this.writer = new ResultWriter({
      record: (results) =>
        deps.repo.recordResults(results, this.claimant, {
          suspendAfter: SUSPEND_AFTER_FAILURES,
          retryDelayMs: (n) => this.retryDelaysMs[Math.min(n, this.retryDelaysMs.length) - 1],
        }),
      log: deps.log,
      holds: () => this.holds(),
      // A failure scheduled a retry (or a suspension dropped a queue): look again.
      onFailureRecorded: () => this.kick(),
    });
    this.lane = {
      repo: deps.repo,
      events: this.events,
      ahead: this.ahead,
      agents: this.agents,
      send: this.send,
      config: deps.config,
      writer: this.writer,
      stats: this.stats,
      dataVersion: () => this.dataVersion(),
      timeoutMs: () => this.timeoutMs,
    };
    this.loop = new Loop({
      pass: () => this.pump(),
      intervalMs: this.pollMs,
      kickDelayMs: () => this.pumpDelayMs,
      log: deps.log,
      // pump() catches what it expects (a busy database); anything else is a bug, retried at the poll.
      failureMessage: 'webhook dispatcher pass failed',
    });
  }

  /**
   * Changes timing at run time. The composition root builds the dispatcher with the spec's
   * values; tests lower them here instead of waiting 30 s for a time-out.
   */
  configure(opts: Omit<DispatcherOptions, 'resolver' | 'send' | 'laneSize'>): void {
    if (opts.timeoutMs !== undefined) this.timeoutMs = opts.timeoutMs;
    if (opts.retryDelaysMs?.length) this.retryDelaysMs = opts.retryDelaysMs;
    if (opts.concurrency !== undefined) this.concurrency = opts.concurrency;
    if (opts.pumpDelayMs !== undefined) this.pumpDelayMs = opts.pumpDelayMs;
    if (opts.leaseMs !== undefined) this.leaseOverrideMs = opts.leaseMs;
    if (opts.sharedBy !== undefined) this.sharedBy = opts.sharedBy;
    if (opts.shareIndex !== undefined) this.shareIndex = opts.shareIndex;
    if (opts.pollMs !== undefined) this.loop.intervalMs = this.pollMs = opts.pollMs;
  }

  start(): void {
    this.loop.start();
  }

  /**
   * Stops sending: requests under way are aborted and their deliveries handed back unsent, so
   * they go out again (same delivery id) when a dispatcher next runs on this database.
   */
  async stop(): Promise<void> {
    const loopStopped = this.loop.stop();
    for (const { abort } of this.inFlight.values()) abort.abort(new Error('dispatcher stopping'));
    // A pass under way ends without claiming (see pump()), so the lanes running now are all there are.
    await loopStopped;
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.promise));
    await this.writer.write();
    this.agents.destroy();
    await this.resolveIdle();
  }

  /** Looks for due deliveries soon (after pumpDelayMs); cheap to call often (calls coalesce). */
  kick(): void {
    this.loop.kick();
  }

  /**
   * Resolves once nothing is in flight or due and every result is written (tests). Scheduled retries do not count as
   * due.
   */
  whenIdle(): Promise<void> {
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    void this.resolveIdle();
    return idle;
  }

  private get busy(): boolean {
    return this.inFlight.size > 0 || this.loop.due || this.pumping;
  }

  /** Answers the idle waiters once nothing is in flight or due and every result is written. */
  private async resolveIdle(): Promise<void> {
    if (this.busy) return;
    await this.writer.write();
    // Work may have started meanwhile: what ends it answers them.
    if (this.busy) return;
    const waiters = this.idleWaiters.splice(0);
    for (const w of waiters) w();
  }

  /**
   * SQLite's data_version (other connections' commits), read once per turn of this thread's event loop, by
   * the first delivery the turn starts. Each lane starts at most one delivery a turn (the next waits for
   * this one's answer, a later turn), and undici writes every request a turn starts at that turn's end
   * (its check phase): a commit while a turn runs reaches each lane's next delivery, as it did when each
   * delivery read it for itself, a few microseconds later in the same turn (docs/decisions.md §8). Half
   * as many reads under a backlog, about two deliveries a turn.
   */
  private dataVersion(): number {
    if (this.turnVersion === undefined) {
      this.turnVersion = this.deps.repo.dataVersion();
      setImmediate(this.endTurn);
    }
    return this.turnVersion;
  }

  private turnVersion: number | undefined;
  private readonly endTurn = (): void => {
    this.turnVersion = undefined;
  };

  /** Each running lane's lease, moved on to the delivery it is sending or about to send. */
  private holds(): DeliveryResult[] {
    const holds: DeliveryResult[] = [];
    for (const { lane } of this.inFlight.values()) {
      if (lane.next < lane.deliveries.length)
        holds.push({
          kind: 'hold',
          seq: lane.deliveries[lane.next].seq,
          until: new Date(lane.leaseEndsAt).toISOString(),
        });
    }
    return holds;
  }

  /**
   * One pass: claims lanes for the webhooks with due deliveries and no lane running, up to the
   * concurrency, and starts them. Answers the wait until the earliest retry falls due (waking
   * exactly then rather than at the next poll), or nothing for the poll.
   */
  private async pump(): Promise<number | undefined> {
    this.pumping = true;
    try {
      // What finished lanes sent must be on record before their webhooks are claimed again; the
      // running lanes go on meanwhile.
      await this.writer.write();
      if (!this.loop.running) return undefined; // stopped meanwhile
      return this.claim();
    } finally {
      this.pumping = false;
      void this.resolveIdle();
    }
  }

  private claim(): number | undefined {
    let lanes: DeliveryRow[][] = [];
    const leaseMs = this.leaseMs();
    try {
      lanes = this.deps.repo.claimLanes({
        limit: this.concurrency - this.inFlight.size,
        batch: this.laneSize,
        busy: new Set(this.inFlight.keys()),
        claimant: this.claimant,
        leaseMs,
        sharedBy: this.sharedBy,
        shareIndex: this.shareIndex,
      });
    } catch (err) {
      // SQLITE_BUSY from another process's write, say: the next poll tries again.
      this.deps.log.warn('webhook dispatcher could not claim deliveries', { err: (err as Error).message });
    }
    for (const lane of lanes) {
      const webhookId = lane[0].webhookId;
      const abort = new AbortController();
      const state: Lane = {
        deliveries: lane,
        next: 0,
        leaseEndsAt: Date.now() + leaseMs,
        bodies: laneBodies(),
      };
      const promise = runLane(this.lane, state, abort.signal)
        .catch((err) => this.deps.log.error('webhook delivery crashed', { deliveryId: lane[0].id, err }))
        .finally(() => {
          this.inFlight.delete(webhookId);
          this.kick(); // this webhook's next events, or a webhook waiting for a free slot
          void this.resolveIdle();
        });
      this.inFlight.set(webhookId, { promise, abort, lane: state });
    }
    const at = this.deps.repo.nextRetryAt();
    return at === undefined
      ? undefined
      : Math.min(this.pollMs, Math.max(0, Math.min(at - Date.now() + 5, MAX_TIMER_MS)));
  }

  /** A claim outlives the longest attempt, so only a crashed process's claims ever expire. */
  private leaseMs(): number {
    return this.leaseOverrideMs ?? this.timeoutMs + 30_000;
  }
}
