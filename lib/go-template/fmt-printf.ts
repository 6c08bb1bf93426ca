/**
 * fmt's Sprintf format (print.go's doPrintf): flags, width and precision (also from `*`
 * arguments), `[n]` argument indexes, and the %!(BADWIDTH), %!(BADPREC), %!(NOVERB),
 * %!v(MISSING), %!v(BADINDEX) and %!(EXTRA ...) forms, as Go writes them.
 */
import type { Fmt } from './fmt-format.ts';
import { decodeRune, encodeRune } from './strconv.ts';
import type { Value } from './types.ts';

const BAD_WIDTH = '%!(BADWIDTH)';
const BAD_PREC = '%!(BADPREC)';
const NO_VERB = '%!(NOVERB)';

/** What of fmt.ts's printer the format needs. */
interface Printer {
  f: Fmt;
  check(): void;
  printArg(arg: Value | null, verb: string): void;
}

export function doPrintf(p: Printer, format: string, a: (Value | null)[]): void {
  const f = p.f;
  const end = format.length;
  let argNum = 0;
  let afterIndex: boolean;
  let reordered = false;
  let goodArgNum: boolean;
  const argNumber = (i: number): [number, number, boolean] => {
    if (i >= end || format[i] !== '[') return [argNum, i, false];
    reordered = true;
    const [index, wid, ok] = parseArgNumber(format.slice(i));
    if (ok && index >= 0 && index < a.length) return [index, i + wid, true];
    goodArgNum = false;
    return [argNum, i + wid, ok];
  };
  const intFromArg = (): [number, boolean] => {
    if (argNum >= a.length) return [0, false];
    const arg = a[argNum++];
    if (arg === null || !['int', 'int64', 'uint8'].includes(arg.t.kind)) return [0, false];
    const n = arg.v as bigint;
    return n > 1000000n || n < -1000000n ? [0, false] : [Number(n), true];
  };
  for (let i = 0; i < end; ) {
    p.check();
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) f.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++;
    f.clearflags();
    let simple = false;
    for (; i < end; i++) {
      const c = format[i];
      if (c === '#') f.sharp = true;
      else if (c === '0') f.zero = !f.minus;
      else if (c === '+') f.plus = true;
      else if (c === '-') {
        f.minus = true;
        f.zero = false;
      } else if (c === ' ') f.space = true;
      else {
        if (c >= 'a' && c <= 'z' && argNum < a.length) {
          if (c === 'v') {
            f.sharpV = f.sharp;
            f.sharp = false;
            f.plusV = f.plus;
            f.plus = false;
          }
          p.printArg(a[argNum++], c);
          i++;
          simple = true;
        }
        break;
      }
    }
    if (simple) continue;

    [argNum, i, afterIndex] = argNumber(i);
    if (i < end && format[i] === '*') {
      i++;
      [f.wid, f.widPresent] = intFromArg();
      if (!f.widPresent) f.buf += BAD_WIDTH;
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      [f.wid, f.widPresent, i] = parsenum(format, i, end);
      if (afterIndex && f.widPresent) goodArgNum = false;
    }
    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      [argNum, i, afterIndex] = argNumber(i);
      if (i < end && format[i] === '*') {
        i++;
        [f.prec, f.precPresent] = intFromArg();
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) f.buf += BAD_PREC;
        afterIndex = false;
      } else {
        [f.prec, f.precPresent, i] = parsenum(format, i, end);
        if (!f.precPresent) {
          f.prec = 0;
          f.precPresent = true;
        }
      }
    }
    if (!afterIndex) [argNum, i] = argNumber(i);
    if (i >= end) {
      f.buf += NO_VERB;
      break;
    }
    const [r, size] = format.charCodeAt(i) < 0x80 ? [format.charCodeAt(i), 1] : decodeRune(format, i);
    const verb = encodeRune(r);
    i += size;
    if (verb === '%') f.buf += '%';
    else if (!goodArgNum) f.buf += `%!${verb}(BADINDEX)`;
    else if (argNum >= a.length) f.buf += `%!${verb}(MISSING)`;
    else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(a[argNum++], verb);
    }
  }
  if (!reordered && argNum < a.length) {
    f.clearflags();
    f.buf += '%!(EXTRA ';
    a.slice(argNum).forEach((arg, i) => {
      if (i > 0) f.buf += ', ';
      if (arg === null) f.buf += '<nil>';
      else {
        f.buf += arg.t.name + '=';
        p.printArg(arg, 'v');
      }
    });
    f.buf += ')';
  }
}

function parsenum(s: string, start: number, end: number): [number, boolean, number] {
  if (start >= end) return [0, false, end];
  let num = 0;
  let isnum = false;
  let i = start;
  for (; i < end && s[i] >= '0' && s[i] <= '9'; i++) {
    if (num > 1e6 || num < -1e6) return [0, false, end];
    num = num * 10 + (s.charCodeAt(i) - 48);
    isnum = true;
  }
  return [num, isnum, i];
}

function parseArgNumber(format: string): [number, number, boolean] {
  if (format.length < 3) return [0, 1, false];
  for (let i = 1; i < format.length; i++) {
    if (format[i] === ']') {
      const [width, ok, newi] = parsenum(format, 1, i);
      if (!ok || newi !== i) return [0, i + 1, false];
      return [width - 1, i + 1, true];
    }
  }
  return [0, 1, false];
}
