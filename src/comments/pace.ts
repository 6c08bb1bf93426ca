import { AppError } from '../errors.ts';

/**
 * docs/decisions.md §18: an account posts at most `limit` comments in any `windowMs` (10 a minute); the
 * next is 429 with Retry-After, the seconds until the oldest of them leaves the window. A sliding
 * window of the times of each account's last comments, in memory (per process, as the other rate
 * limits, src/http/rate-limit.ts): a restart forgives.
 */
export class CommentPace {
  private readonly times = new Map<number, number[]>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes one of the account's comments for the window, or 429 when it has used them all. Taken before
   * the write (so comments sent at once cannot all pass), given back with the returned function when the
   * write fails.
   */
  take(userId: number): () => void {
    const t = this.now();
    const recent = this.recent(userId, t);
    if (recent.length >= this.limit) {
      const waitMs = recent[0] + this.windowMs - t;
      throw new AppError(
        'rate_limited',
        `at most ${this.limit} comments a minute; wait and try again`,
        undefined,
        Math.max(1, Math.ceil(waitMs / 1000)),
      );
    }
    recent.push(t);
    this.times.set(userId, recent);
    // Accounts that stopped commenting carry nothing: dropped now and then, not kept forever.
    if (this.times.size > 10_000) for (const id of [...this.times.keys()]) this.recent(id, t);
    return () => {
      const kept = this.times.get(userId);
      const at = kept?.lastIndexOf(t) ?? -1;
      if (kept && at >= 0) kept.splice(at, 1);
    };
  }

  private recent(userId: number, t: number): number[] {
    const kept = (this.times.get(userId) ?? []).filter((at) => at > t - this.windowMs);
    if (kept.length === 0) this.times.delete(userId);
    else this.times.set(userId, kept);
    return kept;
  }
}
