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
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  // Synchronous stderr: CLI commands exit right after their last line, and a buffered
  // destination could drop it.
  const destination = write ? { write } : pino.destination({ fd: 2, sync: true });
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
  const emit = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields: LogFields = {}) => {
    if (!logger.isLevelEnabled(lvl)) return;
    logger[lvl](redact(fields) as object, msg);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
