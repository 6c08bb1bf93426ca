/**
 * Go's fmt/print.go on typed values: Sprint, Sprintln, Sprintf (its format in fmt-printf.ts), every
 * verb on every kind, and the `%!verb(type=value)` error forms. An argument is what a Go `any`
 * holds: a Value, or null for a nil interface. Output is a byte string.
 */
import { TEMPLATE_LIMITS, fail, meter } from './errors.ts';
import { Fmt, LDIGITS, UDIGITS } from './fmt-format.ts';
import { sliceItems, sortedMapEntries } from './collections.ts';
import { doPrintf } from './fmt-printf.ts';
import type { Box, Value } from './types.ts';

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

export class Printer {
  readonly f = new Fmt();

  check(): void {
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
  doPrintf(p, format, args);
  return p.f.buf;
}
