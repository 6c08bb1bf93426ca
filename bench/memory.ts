import fs from 'node:fs';
import { maxOf, median } from './lib/stats.ts';

/**
 * Memory figure: the server process's resident set size while it serves the search load. Read from
 * /proc/<pid>/status, so only that process counts (not the load generator, not Elasticsearch).
 */
export function readRss(pid: number): { rss: number; hwm: number } | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const bytes = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: bytes('VmRSS'), hwm: bytes('VmHWM') };
}

export interface RssSummary {
  /** largest VmRSS sampled while the load ran */
  maxMiB: number;
  medianMiB: number;
  samples: number;
  /** VmHWM when sampling stopped: the peak since the process started (start-up and warm-up included) */
  peakMiB: number;
}

const MiB = 2 ** 20;

/** Samples a process's RSS every `intervalMs` until stop() is called. */
export function sampleRss(pid: number, intervalMs = 200): { stop(): RssSummary } {
  const values: number[] = [];
  const take = () => {
    const r = readRss(pid);
    if (r && Number.isFinite(r.rss)) values.push(r.rss);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      const hwm = readRss(pid)?.hwm ?? Number.NaN;
      return {
        maxMiB: maxOf(values) / MiB,
        medianMiB: median(values) / MiB,
        samples: values.length,
        peakMiB: hwm / MiB,
      };
    },
  };
}

/** Several sampling windows (e.g. one per load phase) as one figure. */
export function mergeRss(parts: RssSummary[]): RssSummary {
  return {
    maxMiB: Math.max(...parts.map((p) => p.maxMiB)),
    medianMiB: median(parts.map((p) => p.medianMiB)),
    samples: parts.reduce((n, p) => n + p.samples, 0),
    peakMiB: Math.max(...parts.map((p) => p.peakMiB)),
  };
}
