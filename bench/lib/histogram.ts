/**
 * Latencies in a log-scale histogram (bounded memory for runs of any length, issue 28): buckets 1 %
 * apart from 10 µs to ~30 minutes, so a percentile read from it is within 1 % of the exact one,
 * while an hour of samples costs a few kilobytes instead of growing without bound.
 */
const MIN_MS = 0.01;
const GROWTH = 1.01;
const BUCKETS = Math.ceil(Math.log(1.8e6 / MIN_MS) / Math.log(GROWTH)) + 1;

export class Histogram {
  private readonly counts = new Float64Array(BUCKETS);
  n = 0;
  sum = 0;
  max = 0;
  min = Infinity;

  add(ms: number): void {
    const v = ms > MIN_MS ? ms : MIN_MS;
    const i = Math.min(BUCKETS - 1, Math.floor(Math.log(v / MIN_MS) / Math.log(GROWTH)));
    this.counts[i]++;
    this.n++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
    if (ms < this.min) this.min = ms;
  }

  merge(other: Histogram): this {
    for (let i = 0; i < BUCKETS; i++) this.counts[i] += other.counts[i];
    this.n += other.n;
    this.sum += other.sum;
    this.max = Math.max(this.max, other.max);
    this.min = Math.min(this.min, other.min);
    return this;
  }

  /**
   * Nearest-rank percentile (p in 0..100): the upper edge of the bucket holding that rank, never above the max seen;
   * NaN for none.
   */
  percentile(p: number): number {
    if (this.n === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.n));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i];
      if (seen >= rank) return Math.min(this.max, MIN_MS * GROWTH ** (i + 1));
    }
    return this.max;
  }

  summary(): { n: number; p50: number; p90: number; p99: number; max: number; mean: number } {
    return {
      n: this.n,
      p50: this.percentile(50),
      p90: this.percentile(90),
      p99: this.percentile(99),
      max: this.n ? this.max : Number.NaN,
      mean: this.n ? this.sum / this.n : Number.NaN,
    };
  }
}
