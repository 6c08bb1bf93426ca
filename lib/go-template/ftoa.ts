/**
 * strconv.FormatFloat(x, fmt, prec, 64) for the formats fmt uses: e E f g G (shortest when prec
 * is -1, else correctly rounded, ties to even as Go's exact decimal rounding does), b, x and X.
 */
interface Digits {
  /** Significant digits without trailing zeros; value = 0.d × 10^dp. */
  d: string;
  dp: number;
}

function bitsOf(x: number): { neg: boolean; exp: number; mant: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  return {
    neg: hi >>> 31 === 1,
    exp: (hi >>> 20) & 0x7ff,
    mant: (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4)),
  };
}

function trim({ d, dp }: Digits): Digits {
  const t = d.replace(/0+$/, '');
  return t ? { d: t, dp } : { d: '', dp: 0 };
}

/** The exact decimal expansion of a finite non-negative double. */
function exactDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const { exp, mant: m } = bitsOf(x);
  let mant = m;
  let e = -1074;
  if (exp !== 0) {
    mant |= 1n << 52n;
    e = exp - 1075;
  }
  const [n, scale] = e >= 0 ? [mant << BigInt(e), 0] : [mant * 5n ** BigInt(-e), -e];
  const s = n.toString();
  return trim({ d: s, dp: s.length - scale });
}

/** Keeps the first `keep` digits, rounding half to even (ties are exact here). */
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

function shortestDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const [mant, exp] = x.toExponential().split('e');
  return trim({ d: mant.replace('.', ''), dp: Number(exp) + 1 });
}

function fmtE({ d, dp }: Digits, prec: number, ch: string): string {
  let out = d.length ? d[0] : '0';
  if (prec > 0) out += '.' + d.slice(1, prec + 1).padEnd(prec, '0');
  let exp = d.length ? dp - 1 : 0;
  const sign = exp < 0 ? '-' : '+';
  exp = Math.abs(exp);
  return `${out}${ch}${sign}${exp < 10 ? '0' + exp : exp}`;
}

function fmtF({ d, dp }: Digits, prec: number): string {
  let out = dp > 0 ? d.slice(0, dp).padEnd(dp, '0') : '0';
  if (prec > 0) {
    out += '.';
    for (let i = 1; i <= prec; i++) {
      const j = dp + i - 1;
      out += j >= 0 && j < d.length ? d[j] : '0';
    }
  }
  return out;
}

function fmtB(neg: boolean, mant: bigint, exp: number): string {
  exp -= 52;
  return `${neg ? '-' : ''}${mant}p${exp >= 0 ? '+' : ''}${exp}`;
}

function fmtX(prec: number, ch: 'x' | 'X', neg: boolean, m: bigint, exp: number): string {
  let mant = m;
  if (mant === 0n) exp = 0;
  mant <<= 60n - 52n;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = ch === 'X' ? '0123456789ABCDEF' : '0123456789abcdef';
  let out = `${neg ? '-' : ''}0${ch}${(mant >> 60n) & 1n}`;
  const mask = (1n << 64n) - 1n;
  mant = (mant << 4n) & mask;
  const digit = () => {
    const c = hex[Number((mant >> 60n) & 15n)];
    mant = (mant << 4n) & mask;
    return c;
  };
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) out += digit();
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) out += digit();
  }
  const e = Math.abs(exp);
  return `${out}${ch === 'X' ? 'P' : 'p'}${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
}

export function formatFloat(x: number, fmt: string, prec: number): string {
  const { neg, exp: rawExp, mant: rawMant } = bitsOf(x);
  if (rawExp === 0x7ff) return rawMant !== 0n ? 'NaN' : neg ? '-Inf' : '+Inf';
  let exp = rawExp;
  let mant = rawMant;
  if (exp === 0) exp++;
  else mant |= 1n << 52n;
  exp -= 1023;
  if (fmt === 'b') return fmtB(neg, mant, exp);
  if (fmt === 'x' || fmt === 'X') return fmtX(prec, fmt, neg, mant, exp);
  const sign = neg ? '-' : '';
  const abs = Math.abs(x);
  const shortest = prec < 0;
  let digs: Digits;
  if (shortest) {
    digs = shortestDigits(abs);
    if (fmt === 'e' || fmt === 'E') prec = Math.max(digs.d.length - 1, 0);
    else if (fmt === 'f') prec = Math.max(digs.d.length - digs.dp, 0);
    else prec = digs.d.length;
  } else if (fmt === 'f') {
    const exact = exactDigits(abs);
    digs = roundDigits(exact, exact.dp + prec);
  } else {
    if ((fmt === 'g' || fmt === 'G') && prec === 0) prec = 1;
    digs = roundDigits(exactDigits(abs), fmt === 'e' || fmt === 'E' ? prec + 1 : prec);
  }
  if (fmt === 'e' || fmt === 'E') return sign + fmtE(digs, prec, fmt);
  if (fmt === 'f') return sign + fmtF(digs, prec);
  // g, G
  const nd = digs.d.length;
  let eprec = prec;
  if (eprec > nd && nd >= digs.dp) eprec = nd;
  if (shortest) eprec = 6;
  const e = digs.dp - 1;
  if (e < -4 || e >= eprec) {
    if (prec > nd) prec = nd;
    return sign + fmtE(digs, prec - 1, fmt === 'g' ? 'e' : 'E');
  }
  if (prec > digs.dp) prec = nd;
  return sign + fmtF(digs, Math.max(prec - digs.dp, 0));
}
