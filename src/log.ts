/**
 * Structured logging: one JSON line per event (pino), on stderr unless a `write` function is given
 * (tests capture lines with it). Fields named like secrets are never written.
 */
import pino from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const SECRET_KEY = /pass(word)?|secret|token|cookie|access.?key|authorization|api.?key/i;

/**
 * pino's own `redact` option only takes fixed paths; our rule is "any key that looks secret, at any
 * depth", so values are scrubbed before pino sees them. Errors become plain objects here too,
 * because pino serialises only a top-level `err` by itself and we nest them (`{ err: caught }`).
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth === 0 && isFlatAndClean(value)) return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

/**
 * True for a plain object of primitive values under no secret-looking key: nothing to scrub, so it
 * goes to pino as it is instead of as a copy (the request log's line, one per request).
 */
function isFlatAndClean(value: unknown): boolean {
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    Object.getPrototypeOf(value) !== Object.prototype
  )
    return false;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if ((v !== null && typeof v === 'object') || SECRET_KEY.test(k)) return false;
  }
  return true;
}

/**
 * Lines written together once per turn of the event loop, with one system call (stderr stays
 * synchronous underneath). The server logs a line per request; writing each alone was a visible share
 * of `/image/search`'s CPU (issue 28; bench/notes/image-search.md). A warning or error is written at
 * once, after what is pending;
 * so is everything at exit.
 */
function batchedStderr(): { write(line: string): void; flush(): void } {
  // Joined here, not in sonic-boom's buffer: its flushSync also calls fsync, which a pipe refuses
  // with an exception, which costs CPU by itself.
  const dest = pino.destination({ fd: 2, sync: true });
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const lines = pending;
    pending = '';
    dest.write(lines);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= 64 * 1024) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush).unref();
      }
    },
    flush,
  };
}

/**
 * `batched` (the server): lines below warn are written once per event-loop turn (batchedStderr).
 * Otherwise stderr is written synchronously line by line: CLI commands exit right after their last
 * line, and a buffered destination could drop it.
 */
export function createLogger(
  level: LogLevel,
  write?: (line: string) => void,
  opts: { batched?: boolean } = {},
): Logger {
  const batch = !write && opts.batched ? batchedStderr() : undefined;
  const destination = write ? { write } : (batch ?? pino.destination({ fd: 2, sync: true }));
  const logger = pino(
    {
      level,
      // Level names, not numbers, and ISO times: readable as they are and what the previous logger wrote.
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      base: { pid: process.pid },
      // `redact` already reduced errors to name, message and stack; pino's own serialiser would
      // copy every enumerable property back (client errors carry request headers).
      serializers: { err: (e: unknown) => e },
    },
    destination,
  );
  const emit =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: LogFields = {}) => {
      if (!logger.isLevelEnabled(lvl)) return;
      logger[lvl](redact(fields) as object, msg);
      if (batch && (lvl === 'warn' || lvl === 'error')) batch.flush();
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
