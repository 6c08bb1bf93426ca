/**
 * Small statistics helpers. Benchmarks report medians and percentiles, never means alone: one stall on a shared 2-core
 * box would drag a mean.
 */

export function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export const median = (values: number[]): number => percentile(values, 50);

/**
 * Largest value, or `empty` for none. A loop, not Math.max(...values): spreading a long run's samples (150k+) overflows
 * the call stack.
 */
export function maxOf(values: readonly number[], empty = Number.NaN): number {
  let m = values.length ? -Infinity : empty;
  for (const v of values) if (v > m) m = v;
  return m;
}

/** Smallest value, or `empty` for none (a loop, for the same reason as maxOf). */
export function minOf(values: readonly number[], empty = Number.NaN): number {
  let m = values.length ? Infinity : empty;
  for (const v of values) if (v < m) m = v;
  return m;
}

/** Appends every value of `from` to `to` without spreading it into call arguments (which overflows on long runs). */
export function appendAll<T>(to: T[], from: readonly T[]): T[] {
  for (const v of from) to.push(v);
  return to;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Latencies in milliseconds. */
export function summarize(ms: number[]): LatencySummary {
  const mean = ms.length ? ms.reduce((a, b) => a + b, 0) / ms.length : Number.NaN;
  return {
    n: ms.length,
    p50: percentile(ms, 50),
    p90: percentile(ms, 90),
    p99: percentile(ms, 99),
    max: percentile(ms, 100),
    mean,
  };
}

/** A throughput measured in several repetitions: the median is the figure, the spread is shown beside it. */
export interface Repeated {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

export function repeated(runs: number[]): Repeated {
  return { median: median(runs), min: minOf(runs), max: maxOf(runs), runs };
}

/** High-resolution milliseconds since an arbitrary origin. */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Formats for the report: a few significant digits, no noise. */
export function fmt(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (n === 0) return '0';
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  return Number(n.toPrecision(digits)).toString();
}

export const fmtMs = (n: number): string => `${fmt(n)} ms`;
export const fmtRatio = (n: number): string => (Number.isFinite(n) ? `${fmt(n, 3)}×` : 'n/a');
