/**
 * The one background loop of the server's runners (outbox relay, thumbnailer, retention, webhook
 * dispatcher): a pass, then a wait, then the next pass, until stopped. Written once so the four of
 * them agree on what start, stop, kick and a failing pass mean:
 *
 * - Passes never overlap. A pass says how long to wait before the next one (0: at once); saying
 *   nothing means the loop's interval, the safety-net poll for work no kick announced.
 * - A kick asks for a pass soon, after `kickDelayMs` (0: the next turn of the event loop). Kicks
 *   coalesce: while one is pending, more change nothing. A kick during a pass runs one more pass
 *   after it, so work announced while a pass was already past it is not left for the poll.
 * - A pass that throws is logged and counted; the next one waits `backoffMs(failures)` (or the
 *   interval), and kicks do not cut that wait short. The first pass that succeeds resets the count.
 * - stop() cancels what is scheduled and resolves once the pass under way (if any) has ended.
 *
 * Idle and back-off waits are unref'd: a process with nothing else to do need not stay up for them.
 */
import type { Logger } from '../log.ts';

export interface LoopOptions {
  /** One pass. Resolves to the wait before the next pass in ms, or to nothing for the interval. */
  pass: () => Promise<number | void> | number | void;
  /** The wait between passes when a pass asks for no other. */
  intervalMs: number;
  /** The wait before the first pass after start() (default: as after a kick). */
  firstDelayMs?: number;
  /** The wait between a kick and its pass (default 0). Read at every kick. */
  kickDelayMs?: () => number;
  /** The wait after the n-th consecutive failed pass (default: the interval). */
  backoffMs?: (failures: number) => number;
  log: Logger;
  /** Logged (warn) when a pass throws, with the failure count, the wait and the error message. */
  failureMessage: string;
  /** Log only the first failure of a run and every n-th after it (default 1: all of them). */
  logEveryFailures?: number;
  /** Logged (info) when a pass succeeds after failures. */
  recoveredMessage?: string;
}

export class Loop {
  private active = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** The timer (or immediate) pending is a kick's: more kicks coalesce into it. */
  private kickPending = false;
  /** Kicked while a pass ran: one more pass follows it. */
  private kickedDuringPass = false;
  private current: Promise<void> | undefined;
  private failureCount = 0;
  private interval: number;

  constructor(private readonly opts: LoopOptions) {
    this.interval = opts.intervalMs;
  }

  /** start() was called and stop() was not. Passes check it to end early when stopped. */
  get running(): boolean {
    return this.active;
  }

  /** Consecutive failed passes. */
  get failures(): number {
    return this.failureCount;
  }

  /** A kick's pass is pending (scheduled or owed after the pass under way); idle waits do not count. */
  get due(): boolean {
    return this.kickPending || this.kickedDuringPass;
  }

  /** Changes the interval; an idle wait under way starts again with the new one. */
  set intervalMs(ms: number) {
    this.interval = ms;
    if (this.active && !this.current && !this.kickPending && this.timer) this.schedule(ms, false);
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    if (this.opts.firstDelayMs === undefined) this.kick();
    else this.schedule(this.opts.firstDelayMs, false);
  }

  async stop(): Promise<void> {
    this.active = false;
    this.cancel();
    this.kickedDuringPass = false;
    await this.current;
  }

  kick(): void {
    if (!this.active) return;
    if (this.current) {
      this.kickedDuringPass = true;
      return;
    }
    if (this.kickPending) return;
    // After a failure the back-off stands: a kick must not turn it into a tight retry loop.
    this.schedule(this.failureCount > 0 ? this.backoff() : (this.opts.kickDelayMs?.() ?? 0), true);
  }

  private backoff(): number {
    return this.opts.backoffMs?.(this.failureCount) ?? this.interval;
  }

  private cancel(): void {
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = this.immediate = undefined;
    this.kickPending = false;
  }

  private schedule(ms: number, kick: boolean): void {
    this.cancel();
    this.kickPending = kick;
    if (kick && ms <= 0) {
      this.immediate = setImmediate(() => this.run());
      return;
    }
    this.timer = setTimeout(() => this.run(), ms);
    // A kick's short wait holds the process up like the work it announces; a poll or back-off does not.
    if (!kick || this.failureCount > 0) this.timer.unref();
  }

  private run(): void {
    this.timer = this.immediate = undefined;
    this.kickPending = false;
    if (!this.active || this.current) return;
    this.kickedDuringPass = false;
    this.current = (async () => {
      const next = await this.pass();
      this.current = undefined;
      if (!this.active) return;
      if (this.kickedDuringPass) {
        this.kickedDuringPass = false;
        this.kick();
      } else this.schedule(next, false);
    })();
  }

  /** Runs one pass; answers the wait before the next. Never throws. */
  private async pass(): Promise<number> {
    const { log } = this.opts;
    try {
      const asked = await this.opts.pass();
      if (this.failureCount > 0 && this.opts.recoveredMessage)
        log.info(this.opts.recoveredMessage, { failures: this.failureCount });
      this.failureCount = 0;
      return asked ?? this.interval;
    } catch (err) {
      this.failureCount++;
      const next = this.backoff();
      const every = this.opts.logEveryFailures ?? 1;
      if (this.failureCount === 1 || this.failureCount % every === 0)
        log.warn(this.opts.failureMessage, {
          failures: this.failureCount,
          retryInMs: next,
          err: (err as Error).message,
        });
      return next;
    }
  }
}
