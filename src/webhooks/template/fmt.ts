/**
 * Go's fmt/print.go on typed values: Sprint, Sprintln, Sprintf with every verb, flag, width,
 * precision, `*` and `[n]` argument index, and the `%!verb(type=value)` error forms. An argument
 * is what a Go `any` holds: a Value, or null for a nil interface. Output is a byte string.
 */
import { TEMPLATE_LIMITS, fail, meter } from './errors.ts';
import { Fmt, LDIGITS, UDIGITS } from './fmt-format.ts';
import { sliceItems, sortedMapEntries } from './collections.ts';
import { decodeRune, encodeRune } from './strconv.ts';
import type { Box, Value } from './types.ts';

const BAD_WIDTH = '%!(BADWIDTH)';
const BAD_PREC = '%!(BADPREC)';
const NO_VERB = '%!(NOVERB)';

/** A stand-in address for a slice's array or a map (Go prints the real one). */
const addresses = new WeakMap<object, bigint>();
let nextAddr = 0xc000200000n;
function addressOf(x: Value): bigint {
  if (x.v === null) return 0n;
  if (x.t.kind === 'ptr') return (x.v as Box).addr;
  const key = x.t.kind === 'slice' ? x.v.arr : x.v;
  let a = addresses.get(key);
  if (a === undefined) {
    a = nextAddr += 0x30n;
    addresses.set(key, a);
  }
  return a;
}

class Printer {
  readonly f = new Fmt();

  private check(): void {
    meter.charge(1);
    if (this.f.buf.length > TEMPLATE_LIMITS.maxOutputBytes) fail('printed value too large');
  }

  badVerb(verb: string, v: Value | null): void {
    const f = this.f;
    f.buf += '%!' + verb + '(';
    if (v !== null) {
      f.buf += v.t.name + '=';
      this.printValue(v, 'v', 0);
    } else f.buf += '<nil>';
    f.buf += ')';
  }

  printArg(arg: Value | null, verb: string): void {
    const f = this.f;
    if (arg === null) {
      if (verb === 'T' || verb === 'v') f.pad('<nil>');
      else this.badVerb(verb, null);
      return;
    }
    if (verb === 'T') return f.fmtS(arg.t.name);
    if (verb === 'p') return this.fmtPointer(arg, 'p');
    this.printValue(arg, verb, 0);
  }

  private fmtInteger(v: bigint, signed: boolean, verb: string, self: Value): void {
    const f = this.f;
    const u = BigInt.asUintN(64, v);
    switch (verb) {
      case 'v':
        if (f.sharpV && !signed) this.fmt0x64(u, true);
        else f.fmtInteger(u, 10, signed, verb, LDIGITS);
        return;
      case 'd':
        return f.fmtInteger(u, 10, signed, verb, LDIGITS);
      case 'b':
        return f.fmtInteger(u, 2, signed, verb, LDIGITS);
      case 'o':
      case 'O':
        return f.fmtInteger(u, 8, signed, verb, LDIGITS);
      case 'x':
        return f.fmtInteger(u, 16, signed, verb, LDIGITS);
      case 'X':
        return f.fmtInteger(u, 16, signed, verb, UDIGITS);
      case 'c':
        return f.fmtC(u);
      case 'q':
        return f.fmtQc(u);
      case 'U':
        return f.fmtUnicode(u);
    }
    this.badVerb(verb, self);
  }

  private fmt0x64(u: bigint, leading0x: boolean): void {
    const sharp = this.f.sharp;
    this.f.sharp = leading0x;
    this.f.fmtInteger(u, 16, false, 'v', LDIGITS);
    this.f.sharp = sharp;
  }

  private fmtFloat(v: number, verb: string, self: Value): void {
    const f = this.f;
    if (verb === 'v') f.fmtFloat(v, 'g', -1);
    else if ('bgGxX'.includes(verb)) f.fmtFloat(v, verb, -1);
    else if ('feE'.includes(verb)) f.fmtFloat(v, verb, 6);
    else if (verb === 'F') f.fmtFloat(v, 'f', 6);
    else this.badVerb(verb, self);
  }

  private fmtComplex(c: [number, number], verb: string, self: Value): void {
    if (!'vbgGxXfFeE'.includes(verb)) return this.badVerb(verb, self);
    const oldPlus = this.f.plus;
    this.f.buf += '(';
    this.fmtFloat(c[0], verb, self);
    this.f.plus = true;
    this.fmtFloat(c[1], verb, self);
    this.f.buf += 'i)';
    this.f.plus = oldPlus;
  }

  private fmtString(s: string, verb: string, self: Value): void {
    const f = this.f;
    if (verb === 'v') return f.sharpV ? f.fmtQ(s) : f.fmtS(s);
    if (verb === 's') return f.fmtS(s);
    if (verb === 'x') return f.fmtSbx(s, LDIGITS);
    if (verb === 'X') return f.fmtSbx(s, UDIGITS);
    if (verb === 'q') return f.fmtQ(s);
    this.badVerb(verb, self);
  }

  private fmtPointer(x: Value, verb: string): void {
    const f = this.f;
    if (!['ptr', 'slice', 'map'].includes(x.t.kind)) return this.badVerb(verb, x);
    const u = addressOf(x);
    if (verb === 'v') {
      if (f.sharpV) {
        f.buf += `(${x.t.name})(`;
        if (u === 0n) f.buf += 'nil';
        else this.fmt0x64(u, true);
        f.buf += ')';
      } else if (u === 0n) f.pad('<nil>');
      else this.fmt0x64(u, !f.sharp);
    } else if (verb === 'p') this.fmt0x64(u, !f.sharp);
    else if ('bodxX'.includes(verb)) this.fmtInteger(u, false, verb, x);
    else this.badVerb(verb, x);
  }

  printValue(x: Value, verb: string, depth: number): void {
    const f = this.f;
    this.check();
    if (depth > TEMPLATE_LIMITS.maxDepth) fail('printed value nested too deep');
    switch (x.t.kind) {
      case 'bool':
        if (verb === 't' || verb === 'v') f.fmtBoolean(x.v);
        else this.badVerb(verb, x);
        return;
      case 'int':
      case 'int64':
        return this.fmtInteger(x.v, true, verb, x);
      case 'uint8':
        return this.fmtInteger(x.v, false, verb, x);
      case 'float64':
        return this.fmtFloat(x.v, verb, x);
      case 'complex128':
        return this.fmtComplex(x.v, verb, x);
      case 'string':
        return this.fmtString(x.v, verb, x);
      case 'map': {
        if (f.sharpV) {
          f.buf += x.t.name;
          if (x.v === null) {
            f.buf += '(nil)';
            return;
          }
          f.buf += '{';
        } else f.buf += 'map[';
        sortedMapEntries(x).forEach(([k, e], i) => {
          if (i > 0) f.buf += f.sharpV ? ', ' : ' ';
          this.printValue(k, verb, depth + 1);
          f.buf += ':';
          this.printValue(e, verb, depth + 1);
        });
        f.buf += f.sharpV ? '}' : ']';
        return;
      }
      case 'struct': {
        if (f.sharpV) f.buf += x.t.name;
        f.buf += '{';
        (x.v as Value[]).forEach((field, i) => {
          if (i > 0) f.buf += f.sharpV ? ', ' : ' ';
          if (f.plusV || f.sharpV) f.buf += x.t.fields![i].name + ':';
          this.printValue(field, verb, depth + 1);
        });
        f.buf += '}';
        return;
      }
      case 'interface': {
        const inner = x.v as Value | null;
        if (inner === null) f.buf += f.sharpV ? `${x.t.name}(nil)` : '<nil>';
        else this.printValue(inner, verb, depth + 1);
        return;
      }
      case 'slice': {
        // No slice of bytes exists in the data, so %s %q %x %X print element by element.
        const items = sliceItems(x);
        if (f.sharpV) {
          f.buf += x.t.name;
          if (x.v === null) {
            f.buf += '(nil)';
            return;
          }
          f.buf += '{';
          items.forEach((e, i) => {
            if (i > 0) f.buf += ', ';
            this.printValue(e, verb, depth + 1);
          });
          f.buf += '}';
        } else {
          f.buf += '[';
          items.forEach((e, i) => {
            if (i > 0) f.buf += ' ';
            this.printValue(e, verb, depth + 1);
          });
          f.buf += ']';
        }
        return;
      }
      case 'ptr': {
        if (depth === 0 && x.v !== null) {
          const target = (x.v as Box).target;
          if (['slice', 'struct', 'map'].includes(target.t.kind)) {
            f.buf += '&';
            this.printValue(target, verb, depth + 1);
            return;
          }
        }
        return this.fmtPointer(x, verb);
      }
    }
  }

  doPrintf(format: string, a: (Value | null)[]): void {
    const f = this.f;
    const end = format.length;
    let argNum = 0;
    let afterIndex = false;
    let reordered = false;
    let goodArgNum = true;
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
      this.check();
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
            this.printArg(a[argNum++], c);
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
      if (!afterIndex) [argNum, i, afterIndex] = argNumber(i);
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
        this.printArg(a[argNum++], verb);
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
          this.printArg(arg, 'v');
        }
      });
      f.buf += ')';
    }
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

/** fmt.Sprint: a space between operands when neither is a string. */
export function sprint(args: (Value | null)[]): string {
  const p = new Printer();
  let prevString = false;
  args.forEach((arg, i) => {
    const isString = arg !== null && arg.t.kind === 'string';
    if (i > 0 && !isString && !prevString) p.f.buf += ' ';
    p.printArg(arg, 'v');
    prevString = isString;
  });
  return p.f.buf;
}

export function sprintln(args: (Value | null)[]): string {
  const p = new Printer();
  args.forEach((arg, i) => {
    if (i > 0) p.f.buf += ' ';
    p.printArg(arg, 'v');
  });
  return p.f.buf + '\n';
}

export function sprintf(format: string, args: (Value | null)[]): string {
  const p = new Printer();
  p.doPrintf(format, args);
  return p.f.buf;
}
