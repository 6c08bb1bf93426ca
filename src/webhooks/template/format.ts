/**
 * The part of Go's fmt package templates use: how {{.}} prints a value, fmt.Sprint, fmt.Sprintln
 * and fmt.Sprintf. JS has one number type, so integral numbers behave like Go ints and the rest
 * like float64; the float verbs (%f %e %g) accept either, since data cannot say which it meant.
 */
import { TEMPLATE_LIMITS, fail } from './errors.ts';
import { checkDepth, checkValue, formatTime, isNil, isRecord, sortedEntries, typeName } from './values.ts';

interface Flags {
  minus: boolean;
  plus: boolean;
  zero: boolean;
  space: boolean;
  sharp: boolean;
  width?: number;
  prec?: number;
}

const NO_FLAGS: Flags = { minus: false, plus: false, zero: false, space: false, sharp: false };

/** What {{pipeline}} writes: like %v, except that nil is "<no value>" as in text/template. */
export function printAction(v: unknown): string {
  return isNil(v) ? '<no value>' : formatValue(v, 'v', NO_FLAGS, 0);
}

/** fmt.Sprint: operands are separated by a space when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(a, 'v', NO_FLAGS, 0);
  });
  return out;
}

export function sprintln(args: unknown[]): string {
  return args.map((a) => formatValue(a, 'v', NO_FLAGS, 0)).join(' ') + '\n';
}

export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argi = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct === -1) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f: Flags = { ...NO_FLAGS };
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === '-') f.minus = true;
      else if (c === '+') f.plus = true;
      else if (c === '0') f.zero = true;
      else if (c === ' ') f.space = true;
      else if (c === '#') f.sharp = true;
      else break;
    }
    const num = (): number | undefined | 'bad' => {
      const m = /^\d+/.exec(format.slice(i, i + 20));
      if (!m) return undefined;
      i += m[0].length;
      return Number(m[0]) > 1e6 ? 'bad' : Number(m[0]);
    };
    const width = num();
    if (width === 'bad') out += '%!(BADWIDTH)';
    else f.width = width;
    if (format[i] === '.') {
      i++;
      const prec = num() ?? 0;
      if (prec === 'bad') out += '%!(BADPREC)';
      else f.prec = prec;
    }
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') out += '%';
    else if (argi >= args.length) out += `%!${verb}(MISSING)`;
    else out += formatValue(args[argi++], verb, f, 0);
    if (out.length > TEMPLATE_LIMITS.maxOutputBytes) fail('printf result too large');
  }
  if (argi < args.length) {
    const extra = args
      .slice(argi)
      .map((a) => (isNil(a) ? '<nil>' : `${typeName(a)}=${formatValue(a, 'v', NO_FLAGS, 0)}`));
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}

function formatValue(v: unknown, verb: string, f: Flags, depth: number): string {
  checkDepth(depth);
  // The common case, kept cheap because large values are printed element by element.
  if (f === NO_FLAGS && verb === 'v') {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  }
  checkValue(v, 'printed value');
  if (verb === 'T') return pad(typeName(v), f);
  if (isNil(v)) return verb === 'v' || depth > 0 ? pad('<nil>', f) : `%!${verb}(<nil>)`;
  if (Array.isArray(v)) {
    return '[' + joinBounded(Array.from(v, (e) => formatValue(e, verb, f, depth + 1))) + ']';
  }
  if (isRecord(v)) {
    const items = sortedEntries(v).map(
      ([k, e]) => `${formatValue(k, verb, f, depth + 1)}:${formatValue(e, verb, f, depth + 1)}`,
    );
    return 'map[' + joinBounded(items) + ']';
  }
  switch (typeof v) {
    case 'string':
      if (verb === 'v' || verb === 's') return pad(f.prec === undefined ? v : [...v].slice(0, f.prec).join(''), f);
      if (verb === 'q') return pad(goQuote(v, '"'), f);
      if (verb === 'x' || verb === 'X') return pad(hex(Buffer.from(v, 'utf8').toString('hex'), verb), f);
      break;
    case 'boolean':
      if (verb === 'v' || verb === 't') return pad(String(v), f);
      break;
    case 'bigint':
      return formatInteger(v, verb === 'v' ? 'd' : verb, f) ?? badVerb(v, verb);
    case 'number':
      if ('eEfFgG'.includes(verb) || (verb === 'v' && !isInt(v))) return formatFloat(v, verb, f);
      if (isInt(v)) return formatInteger(BigInt(v), verb === 'v' ? 'd' : verb, f) ?? badVerb(v, verb);
      break;
  }
  if (v instanceof Date) {
    if (verb === 'v' || verb === 's') return pad(formatTime(v), f);
    if (verb === 'q') return pad(goQuote(formatTime(v), '"'), f);
  }
  return badVerb(v, verb);
}

function badVerb(v: unknown, verb: string): string {
  return `%!${verb}(${typeName(v)}=${formatValue(v, 'v', NO_FLAGS, 1)})`;
}

/** Integral numbers up to 1e21 act as Go ints; beyond that only a float64 could have held them. */
const isInt = (n: number) => Number.isInteger(n) && Math.abs(n) < 1e21;

function joinBounded(items: string[]): string {
  const s = items.join(' ');
  if (s.length > TEMPLATE_LIMITS.maxOutputBytes) fail('printed value too large');
  return s;
}

function pad(s: string, f: Flags): string {
  if (f.width === undefined) return s;
  const n = f.width - [...s].length;
  if (n <= 0) return s;
  return f.minus ? s + ' '.repeat(n) : ' '.repeat(n) + s;
}

const hex = (s: string, verb: string) => (verb === 'X' ? s.toUpperCase() : s);

function signOf(negative: boolean, f: Flags): string {
  return negative ? '-' : f.plus ? '+' : f.space ? ' ' : '';
}

/** Zero padding goes between the sign (and base prefix) and the digits. */
function padNumber(sign: string, digits: string, f: Flags, zeroAllowed = true): string {
  if (f.zero && zeroAllowed && !f.minus && f.width !== undefined) {
    digits = digits.padStart(f.width - sign.length, '0');
  }
  return pad(sign + digits, f);
}

function formatInteger(n: bigint, verb: string, f: Flags): string | null {
  const neg = n < 0n;
  const abs = neg ? -n : n;
  if (verb === 'c') return pad(runeString(abs), f);
  if (verb === 'q') return pad(goQuote(runeString(abs), "'"), f);
  if (verb === 'U') return pad('U+' + abs.toString(16).toUpperCase().padStart(4, '0'), f);
  const base = { d: 10, x: 16, X: 16, o: 8, b: 2 }[verb];
  if (!base) return null;
  let digits = hex(abs.toString(base), verb);
  if (f.prec !== undefined) digits = f.prec === 0 && abs === 0n ? '' : digits.padStart(f.prec, '0');
  const prefix = !f.sharp
    ? ''
    : verb === 'x'
      ? '0x'
      : verb === 'X'
        ? '0X'
        : verb === 'o' && digits[0] !== '0'
          ? '0'
          : verb === 'b'
            ? '0b'
            : '';
  return padNumber(signOf(neg, f) + prefix, digits, f, f.prec === undefined);
}

function runeString(cp: bigint): string {
  return cp <= 0x10ffffn && !(cp >= 0xd800n && cp < 0xe000n) ? String.fromCodePoint(Number(cp)) : '\ufffd';
}

function formatFloat(x: number, verb: string, f: Flags): string {
  const neg = x < 0 || Object.is(x, -0);
  // Go never zero-pads these, and shows +Inf's sign even without the + flag.
  if (Number.isNaN(x)) return pad(f.plus ? '+NaN' : f.space ? ' NaN' : 'NaN', f);
  if (!Number.isFinite(x)) return pad(neg ? '-Inf' : f.space && !f.plus ? ' Inf' : '+Inf', f);
  const abs = Math.abs(x);
  let body: string;
  const lower = verb.toLowerCase();
  if (lower === 'e') body = fmtE(roundDigits(exactDigits(abs), (f.prec ?? 6) + 1), f.prec ?? 6);
  else if (lower === 'f') {
    const d = exactDigits(abs);
    body = fmtF(roundDigits(d, d.dp + (f.prec ?? 6)), f.prec ?? 6);
  } else body = fmtG(abs, f.prec);
  if (verb === 'E' || verb === 'G') body = body.toUpperCase();
  return padNumber(signOf(neg, f), body, f);
}

/** Decimal digits (no trailing zeros) and point position: value = 0.digits × 10^dp. */
interface Digits {
  d: string;
  dp: number;
}

/** The exact decimal expansion of a finite non-negative double. */
function exactDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const exponent = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let e = -1074;
  if (exponent !== 0) {
    mantissa |= 1n << 52n;
    e = exponent - 1075;
  }
  const [n, scale] = e >= 0 ? [mantissa << BigInt(e), 0] : [mantissa * 5n ** BigInt(-e), -e];
  const s = n.toString();
  return trim({ d: s, dp: s.length - scale });
}

function trim({ d, dp }: Digits): Digits {
  const t = d.replace(/0+$/, '');
  return t ? { d: t, dp } : { d: '', dp: 0 };
}

/** Keeps the first `keep` digits, rounding half to even like Go's strconv. */
function roundDigits({ d, dp }: Digits, keep: number): Digits {
  if (keep >= d.length) return { d, dp };
  if (keep < 0) return { d: '', dp: 0 };
  const next = d[keep];
  const tail = /[1-9]/.test(d.slice(keep + 1));
  const up = next > '5' || (next === '5' && (tail || (keep > 0 && Number(d[keep - 1]) % 2 === 1)));
  let kept = d.slice(0, keep);
  if (up) {
    const bumped = (BigInt(kept || '0') + 1n).toString();
    if (bumped.length > kept.length) dp++;
    kept = bumped;
  }
  return trim({ d: kept, dp });
}

function fmtE({ d, dp }: Digits, prec: number): string {
  const exp = d ? dp - 1 : 0;
  const digits = (d || '0').padEnd(prec + 1, '0');
  const frac = prec > 0 ? '.' + digits.slice(1, prec + 1) : '';
  return `${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function fmtF({ d, dp }: Digits, prec: number): string {
  const int = dp > 0 ? d.slice(0, dp).padEnd(dp, '0') : '0';
  let frac = '';
  for (let j = dp; j < dp + prec; j++) frac += j >= 0 && j < d.length ? d[j] : '0';
  return prec > 0 ? `${int}.${frac}` : int;
}

/** %g / %v: shortest representation without a precision, as strconv.FormatFloat(x, 'g', p, 64). */
function fmtG(x: number, prec: number | undefined): string {
  let digits: Digits;
  let p: number;
  const shortest = prec === undefined;
  if (shortest) {
    const [mant, exp] = x.toExponential().split('e');
    digits = trim({ d: mant.replace('.', ''), dp: Number(exp) + 1 });
    p = digits.d.length;
  } else {
    p = prec === 0 ? 1 : prec;
    digits = roundDigits(exactDigits(x), p);
  }
  const nd = digits.d.length;
  const eprec = shortest ? 6 : p > nd && nd >= digits.dp ? nd : p;
  const exp = digits.dp - 1;
  if (exp < -4 || exp >= eprec) return fmtE(digits, Math.min(p, nd) - 1);
  return fmtF(digits, Math.max((p > digits.dp ? nd : p) - digits.dp, 0));
}

/** strconv.Quote / QuoteRune: Go escapes, printable Unicode kept as is. */
export function goQuote(s: string, q: '"' | "'"): string {
  const named: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
  };
  let out = q;
  for (let ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp < 0xe000) ch = '\ufffd'; // a lone surrogate becomes U+FFFD in UTF-8
    if (ch === q || ch === '\\') out += '\\' + ch;
    else if (ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else if (named[ch]) out += named[ch];
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + q;
}
