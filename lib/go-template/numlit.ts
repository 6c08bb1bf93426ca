/**
 * Number literals as Go's text/template reads them: parse/node.go's newNumber (with strconv's
 * ParseInt, ParseUint and ParseFloat, base prefixes and `_` separators) decides what a literal can
 * be, and exec.go's idealConstant which Go value it becomes: int, float64 or complex128.
 */
import { T, val, type Value } from './types.ts';

export interface NumberLiteral {
  text: string;
  /** The value, or the error Go reports when the literal is evaluated ("... overflows int"). */
  value: Value | { error: string };
}

/** strconv's underscoreOK: `_` only between digits, or after a base prefix. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1])) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

/** strconv.ParseUint(s, 0, 64); null on any error. */
function parseUint(s0: string): bigint | null {
  let s = s0;
  if (s === '') return null;
  let base = 10n;
  if (s[0] === '0') {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && (p === 'b' || p === 'o' || p === 'x')) {
      base = p === 'b' ? 2n : p === 'o' ? 8n : 16n;
      s = s.slice(2);
    } else {
      base = 8n;
      s = s.slice(1);
    }
  }
  let n = 0n;
  let underscores = false;
  for (const c of s) {
    if (c === '_') {
      underscores = true;
      continue;
    }
    const digit = parseInt(c, 36);
    if (Number.isNaN(digit) || BigInt(digit) >= base) return null;
    const d = BigInt(digit);
    n = n * base + d;
    if (n >= 1n << 64n) return null;
  }
  if (underscores && !underscoreOK(s0)) return null;
  return n;
}

/** strconv.ParseInt(s, 0, 64); null on any error. */
function parseInt64(s: string): bigint | null {
  const neg = s[0] === '-';
  const u = parseUint(s[0] === '-' || s[0] === '+' ? s.slice(1) : s);
  if (u === null) return null;
  if (neg ? u > 1n << 63n : u >= 1n << 63n) return null;
  return neg ? -u : u;
}

/** strconv.ParseFloat(s, 64); null on a syntax or range error. */
export function parseFloat64(s: string): number | null {
  if (!underscoreOK(s)) return null;
  const t = s.replace(/_/g, '');
  const dec = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
  let f: number;
  if (dec && (dec[2] || dec[3])) f = Number(t);
  else {
    const hex = /^([+-]?)0[xX]([\da-fA-F]*)(?:\.([\da-fA-F]*))?[pP]([+-]?\d+)$/.exec(t);
    if (!hex || !(hex[2] || hex[3])) return null;
    const digits = (hex[2] ?? '') + (hex[3] ?? '');
    const exp = Number(hex[4]) - 4 * (hex[3] ?? '').length;
    f = Number(BigInt('0x' + digits)) * 2 ** exp;
    if (hex[1] === '-') f = -f;
  }
  return Number.isFinite(f) ? f : null;
}

/** fmt.Sscan of a complex literal such as 1+2i or -1.5e3-2i. */
function parseComplex(text: string): [number, number] | null {
  const m = /^(.*?[^eEpP])([+-][^+-]*)i$/.exec(text);
  if (!m) return null;
  const re = parseFloat64(m[1]);
  const im = parseFloat64(m[2]);
  return re === null || im === null ? null : [re, im];
}

/** newNumber then idealConstant; throws a message when Go's parser refuses the literal. */
export function numberLiteral(text: string, kind: 'number' | 'complex' | 'char'): NumberLiteral {
  const lit = (v: Value): NumberLiteral => ({ text, value: v });
  if (kind === 'char') return lit(val(T.int, BigInt(text)));
  if (kind === 'complex') {
    const c = parseComplex(text);
    if (!c) throw new Error(`expected integer`);
    return lit(val(T.complex128, c));
  }
  if (text.endsWith('i')) {
    const f = parseFloat64(text.slice(0, -1));
    if (f !== null) return lit(val(T.complex128, [0, f]));
  }
  const u = parseUint(text);
  const i = parseInt64(text);
  if (u === null && i === null) {
    const f = parseFloat64(text);
    if (f === null) throw new Error(`illegal number syntax: ${JSON.stringify(text)}`);
    // A float too large for an integer, written as one, is an overflow; else idealConstant keeps a float64.
    if (!/[.eEpP]/.test(text)) throw new Error(`integer overflow: ${JSON.stringify(text)}`);
    return lit(val(T.float64, f));
  }
  const isHexInt = /^0[xX]/.test(text) && !/[pP]/.test(text);
  if (!isHexInt && /[.eEpP]/.test(text)) {
    // An integer written with a float's characters (1e3, -0x1E) is a float64, as Go decides.
    return lit(val(T.float64, Number(i ?? u)));
  }
  if (i !== null) return lit(val(T.int, i));
  // Only a uint64 (above int64's range) is left, which idealConstant refuses when evaluated.
  return { text, value: { error: `${text} overflows int` } };
}
