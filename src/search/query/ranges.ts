import { parseSpan, type Span } from '../post-search/dates.ts';
import type { Bounds } from './model.ts';

/**
 * Danbooru's range forms (docs/decisions.md §20): `5`, `>5`, `>=5`, `<5`, `<=5`, `5..10` (both ends
 * included; either may be left open), `5,7` (any of the values). Each becomes half-open bounds:
 * integers [a, b + 1), dates [start of a, end of b). Undefined for a malformed value.
 */
export function parseRange<T>(
  value: string,
  read: (s: string) => T | undefined,
  span: (v: T) => Span,
): Bounds[] | undefined {
  const one = (s: string): Bounds | undefined => {
    const cmp = /^(>=|<=|>|<)(.+)$/.exec(s);
    if (cmp) {
      const v = read(cmp[2]);
      if (v === undefined) return undefined;
      const { start, end } = span(v);
      return cmp[1] === '>'
        ? { gte: end }
        : cmp[1] === '>='
          ? { gte: start }
          : cmp[1] === '<'
            ? { lt: start }
            : { lt: end };
    }
    const dots = s.indexOf('..');
    if (dots >= 0) {
      const lo = s.slice(0, dots);
      const hi = s.slice(dots + 2);
      if (lo === '' && hi === '') return undefined;
      const a = lo === '' ? undefined : read(lo);
      const b = hi === '' ? undefined : read(hi);
      if ((lo !== '' && a === undefined) || (hi !== '' && b === undefined)) return undefined;
      return { ...(a !== undefined ? { gte: span(a).start } : {}), ...(b !== undefined ? { lt: span(b).end } : {}) };
    }
    const v = read(s);
    if (v === undefined) return undefined;
    const { start, end } = span(v);
    return { gte: start, lt: end };
  };
  const parts = value.includes(',') ? value.split(',') : [value];
  const out: Bounds[] = [];
  for (const p of parts) {
    const b = one(p);
    if (!b) return undefined;
    out.push(b);
  }
  return out;
}

const INTEGER = /^-?\d{1,15}$/;
const readInt = (s: string): number | undefined => (INTEGER.test(s) ? Number(s) : undefined);

export const intRange = (value: string): Bounds[] | undefined =>
  parseRange(value, readInt, (n) => ({ start: n, end: n + 1 }));

const DECIMAL = /^\d{1,9}(?:\.\d{1,6})?$/;
const readDecimal = (s: string): number | undefined => (DECIMAL.test(s) ? Number(s) : undefined);
/** Below any difference of two durations a file states: a bare value is that instant, `<=v` includes it. */
const INSTANT = 1e-6;

/** Seconds, decimals allowed (docs/decisions.md §21's `duration:`): `5` is exactly 5 s, `<=5` includes it. */
export const secondsRange = (value: string): Bounds[] | undefined =>
  parseRange(value, readDecimal, (n) => ({ start: n, end: n + INSTANT }));

/** `YYYY-MM-DD`, a whole UTC day. */
export const dateRange = (value: string): Bounds[] | undefined =>
  parseRange(
    value,
    (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) ? parseSpan(s) : undefined),
    (s) => s,
  );
