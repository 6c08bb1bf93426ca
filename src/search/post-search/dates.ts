import type { Bounds } from '../query/model.ts';

/** A span of time named by a date value: [start, end) in epoch milliseconds. */
export interface Span {
  start: number;
  end: number;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

export const DATE_FORMS = 'YYYY-MM-DD or YYYY-MM-DDTHH:mm:SSZ';

/**
 * `YYYY-MM-DD` is that whole UTC day, `YYYY-MM-DDTHH:mm:SSZ` that whole second (docs/decisions.md §6).
 * Returns undefined for any other form (offsets, fractions) and for dates that do not exist.
 */
export function parseSpan(value: string): Span | undefined {
  const m = SECOND.exec(value) ?? DAY.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1).map(Number);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const d = new Date(0);
  // setUTCFullYear keeps years 0-99 literal, where Date.UTC would map them to 1900-1999.
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  // A day past the month's end (2024-02-30) rolls over into the next month: impossible.
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  const start = d.getTime();
  return { start, end: start + (m.length === 7 ? 1000 : 86_400_000) };
}

export const DATE_OPS = ['gt', 'gte', 'ge', 'lt', 'lte', 'le', 'eq', 'ne'] as const;
export type DateOp = (typeof DATE_OPS)[number];

/**
 * The bounds of `field op span`, per the table in docs/decisions.md §6; for `ne` the bounds of `eq`,
 * which the caller negates.
 */
export function dateBounds(op: DateOp, span: Span): Bounds {
  switch (op) {
    case 'eq':
    case 'ne':
      return { gte: span.start, lt: span.end };
    case 'gt':
      return { gte: span.end };
    case 'gte':
    case 'ge':
      return { gte: span.start };
    case 'lt':
      return { lt: span.start };
    case 'lte':
    case 'le':
      return { lt: span.end };
  }
}
