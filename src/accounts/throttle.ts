import { AppError } from '../errors.ts';

/**
 * Failed-login throttling (docs/decisions.md §2), in memory, sliding window. Three counters:
 *
 * - per (username, address): the tight limit. Guessing one account from one place stops after
 *   `perPair` failures, while the owner can still log in from elsewhere.
 * - per address: catches one client spraying many usernames.
 * - per username: catches guessing one account from many addresses. It is looser than the pair
 *   limit because hitting it locks the owner out too.
 *
 * An attempt is counted as a failure *before* the password is checked and taken back on success,
 * so concurrent attempts cannot all slip past the check while scrypt runs. A success clears the
 * username's counters; it does not clear the address counter (logging into one's own account
 * must not reset a spraying budget).
 */

export interface ThrottleOptions {
  windowMs: number;
  perPair: number;
  perAddress: number;
  perUsername: number;
  /** entries kept per counter table; the least recently failed are forgotten first */
  maxEntries: number;
  now: () => number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  windowMs: 15 * 60 * 1000,
  perPair: 10,
  perAddress: 50,
  perUsername: 100,
  maxEntries: 10_000,
  now: () => Date.now(),
};

/** Timestamps of recent failures per key, at most `limit` of them. Bounded; LRU eviction. */
export class FailureWindow {
  private readonly entries = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxEntries: number,
  ) {}

  private live(key: string, now: number): number[] | undefined {
    const times = this.entries.get(key);
    if (!times) return undefined;
    while (times.length > 0 && times[0] <= now - this.windowMs) times.shift();
    if (times.length === 0) {
      this.entries.delete(key);
      return undefined;
    }
    return times;
  }

  /** Milliseconds until the key may try again, or 0. */
  blockedFor(key: string, now: number): number {
    const times = this.live(key, now);
    if (!times || times.length < this.limit) return 0;
    return times[times.length - this.limit] + this.windowMs - now;
  }

  add(key: string, now: number): void {
    const times = this.live(key, now) ?? [];
    times.push(now);
    if (times.length > this.limit) times.shift();
    // Re-inserting moves the key to the end of the Map's order, which makes eviction LRU.
    this.entries.delete(key);
    this.entries.set(key, times);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Takes back one failure recorded at `at` (an attempt that turned out to succeed). */
  remove(key: string, at: number): void {
    const times = this.entries.get(key);
    const i = times?.lastIndexOf(at) ?? -1;
    if (times && i >= 0) times.splice(i, 1);
  }

  clear(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

export interface LoginAttempt {
  readonly username: string;
  readonly address: string;
  readonly at: number;
}

export class LoginThrottle {
  private readonly opts: ThrottleOptions;
  private readonly pairs: FailureWindow;
  private readonly addresses: FailureWindow;
  private readonly usernames: FailureWindow;

  constructor(options: Partial<ThrottleOptions> = {}) {
    this.opts = { ...DEFAULT_THROTTLE, ...options };
    const { windowMs, maxEntries } = this.opts;
    this.pairs = new FailureWindow(this.opts.perPair, windowMs, maxEntries);
    this.addresses = new FailureWindow(this.opts.perAddress, windowMs, maxEntries);
    this.usernames = new FailureWindow(this.opts.perUsername, windowMs, maxEntries);
  }

  /**
   * Throws 429 (with Retry-After) when any counter is full; otherwise records the attempt as a
   * failure, to be taken back by `succeeded`.
   */
  begin(username: string, address: string): LoginAttempt {
    const now = this.opts.now();
    // Names are unique without regard to case, so their counters are too.
    const user = username.toLowerCase();
    const pair = `${user}\u0000${address}`;
    const wait = Math.max(
      this.pairs.blockedFor(pair, now),
      this.addresses.blockedFor(address, now),
      this.usernames.blockedFor(user, now),
    );
    if (wait > 0) throw rateLimited('too many failed logins; try again later', wait);
    this.pairs.add(pair, now);
    this.addresses.add(address, now);
    this.usernames.add(user, now);
    return { username: user, address, at: now };
  }

  succeeded(attempt: LoginAttempt): void {
    this.pairs.clear(`${attempt.username}\u0000${attempt.address}`);
    this.usernames.clear(attempt.username);
    this.addresses.remove(attempt.address, attempt.at);
  }

  /** Entries held, for tests of the bound. */
  get size(): { pairs: number; addresses: number; usernames: number } {
    return { pairs: this.pairs.size, addresses: this.addresses.size, usernames: this.usernames.size };
  }
}

/** A 429 whose Retry-After is the wait, in whole seconds (at least 1). */
const rateLimited = (message: string, waitMs: number): AppError =>
  new AppError('rate_limited', message, undefined, Math.max(1, Math.ceil(waitMs / 1000)));

/**
 * Sign-ups per client address (docs/decisions.md §14: throttled like login): every attempt counts, made or
 * refused, so one client cannot mint accounts (or probe names) faster than `perAddress` a window.
 */
export class SignupThrottle {
  private readonly window: FailureWindow;
  private readonly now: () => number;

  constructor(options: { perAddress?: number; windowMs?: number; now?: () => number } = {}) {
    this.window = new FailureWindow(
      options.perAddress ?? 10,
      options.windowMs ?? DEFAULT_THROTTLE.windowMs,
      DEFAULT_THROTTLE.maxEntries,
    );
    this.now = options.now ?? DEFAULT_THROTTLE.now;
  }

  /** Throws 429 (with Retry-After) past the limit; otherwise counts the attempt. */
  begin(address: string): void {
    const now = this.now();
    const wait = this.window.blockedFor(address, now);
    if (wait > 0) throw rateLimited('too many sign-ups from this address; try again later', wait);
    this.window.add(address, now);
  }
}
