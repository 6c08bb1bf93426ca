/**
 * Progress on stderr for the long-running admin commands. A TTY gets one redrawn bar line; logs and
 * pipes get a plain line every few seconds, so redirected output stays readable.
 */
export interface Progress {
  /** sets the amount done (and optionally a new total) */
  update(done: number, total?: number): void;
  /** a phase label shown before the bar, e.g. "loading" */
  phase(label: string): void;
  done(): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream;
  /** plain-line interval for non-TTY streams */
  intervalMs?: number;
  /** no output at all (tests, --quiet) */
  silent?: boolean;
}

const WIDTH = 30;

export function createProgress(label: string, total: number, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  const tty = Boolean(stream.isTTY);
  const interval = opts.intervalMs ?? (tty ? 100 : 5000);
  const started = Date.now();
  let phase = label;
  let done = 0;
  let lastDraw = 0;
  let drawnOnce = false;

  const line = (): string => {
    const pct = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(pct * WIDTH);
    const secs = (Date.now() - started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    return `${phase} [${'#'.repeat(filled)}${' '.repeat(WIDTH - filled)}] ${Math.floor(pct * 100)}% ${done}/${total} ${rate} docs/s`;
  };
  const draw = (force = false) => {
    if (opts.silent) return;
    const now = Date.now();
    if (!force && now - lastDraw < interval) return;
    lastDraw = now;
    drawnOnce = true;
    stream.write(tty ? `\r${line()}\x1b[K` : `${line()}\n`);
  };

  return {
    update(n, newTotal) {
      done = n;
      if (newTotal !== undefined) total = newTotal;
      draw();
    },
    phase(label) {
      if (tty && drawnOnce && !opts.silent) stream.write('\n');
      phase = label;
      drawnOnce = false;
      draw(true);
    },
    done() {
      draw(true);
      if (tty && !opts.silent) stream.write('\n');
    },
  };
}

/** For library callers that want no output. */
export const silentProgress: Progress = { update() {}, phase() {}, done() {} };
