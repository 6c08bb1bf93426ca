/**
 * Progress on stderr for the long-running admin commands. A TTY gets one redrawn bar line; logs and
 * pipes get a plain line at most every few seconds (the first update and the final state always
 * show), so redirected output stays readable and CI logs still show the command moving.
 */
import type { Progress } from '../util/progress.ts';

export interface ProgressOptions {
  stream?: NodeJS.WriteStream;
  /** plain-line interval for non-TTY streams */
  intervalMs?: number;
  /** no output at all (tests, --quiet) */
  silent?: boolean;
  /** what is counted, for the rate: "docs" (default), "files", "posts" */
  unit?: string;
  /** show the time left at the rate so far (import, docs/decisions.md §22) */
  timeLeft?: boolean;
}

/** Seconds as `42s`, `3m05s`, `2h07m`. */
export function duration(secs: number): string {
  const s = Math.round(secs);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const WIDTH = 30;

export function createProgress(label: string, total: number, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  const tty = Boolean(stream.isTTY);
  const interval = opts.intervalMs ?? (tty ? 100 : 5000);
  const unit = opts.unit ?? 'docs';
  const started = Date.now();
  let phase = label;
  let done = 0;
  let lastDraw = 0;
  let drawnOnce = false;
  // The state the last plain line showed: done() does not repeat it in a log.
  let lastShown = '';
  const state = () => `${phase}\0${done}\0${total}`;

  const line = (): string => {
    const pct = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(pct * WIDTH);
    const secs = (Date.now() - started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    const left = opts.timeLeft && done > 0 && done < total ? `, ${duration(((total - done) * secs) / done)} left` : '';
    return `${phase} [${'#'.repeat(filled)}${' '.repeat(WIDTH - filled)}] ${Math.floor(pct * 100)}% ${done}/${total} ${rate} ${unit}/s${left}`;
  };
  const draw = (force = false) => {
    if (opts.silent) return;
    const now = Date.now();
    if (!force && now - lastDraw < interval) return;
    lastDraw = now;
    drawnOnce = true;
    lastShown = state();
    stream.write(tty ? `\r${line()}\x1b[K` : `${line()}\n`);
  };

  return {
    update(n, newTotal) {
      done = n;
      if (newTotal !== undefined) total = newTotal;
      draw();
    },
    phase(name) {
      if (tty && drawnOnce && !opts.silent) stream.write('\n');
      phase = `${label} ${name}`;
      drawnOnce = false;
      draw(true);
    },
    done() {
      if (tty || lastShown !== state()) draw(true);
      if (tty && !opts.silent) stream.write('\n');
    },
  };
}
