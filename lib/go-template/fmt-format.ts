/**
 * Go's fmt/format.go: padding and the formatting of one integer, float, string or rune under the
 * current flags, width and precision. Strings are byte strings.
 */
import { formatFloat } from './ftoa.ts';
import { canBackquote, decodeRune, encodeRune, isPrint, quote, quoteRune, runeCount } from './strconv.ts';

export const LDIGITS = '0123456789abcdefx';
export const UDIGITS = '0123456789ABCDEFX';

export class Fmt {
  buf = '';
  widPresent = false;
  precPresent = false;
  minus = false;
  plus = false;
  sharp = false;
  space = false;
  zero = false;
  plusV = false;
  sharpV = false;
  wid = 0;
  prec = 0;

  clearflags(): void {
    this.widPresent = this.precPresent = this.minus = this.plus = this.sharp = false;
    this.space = this.zero = this.plusV = this.sharpV = false;
    this.wid = this.prec = 0;
  }

  writePadding(n: number): void {
    if (n > 0) this.buf += (this.zero ? '0' : ' ').repeat(n);
  }

  pad(s: string): void {
    if (!this.widPresent || this.wid === 0) {
      this.buf += s;
      return;
    }
    const width = this.wid - runeCount(s);
    if (!this.minus) {
      this.writePadding(width);
      this.buf += s;
    } else {
      this.buf += s;
      this.writePadding(width);
    }
  }

  fmtBoolean(v: boolean): void {
    this.pad(v ? 'true' : 'false');
  }

  fmtUnicode(u: bigint): void {
    let prec = 4;
    if (this.precPresent && this.prec > 4) prec = this.prec;
    let out = '';
    if (this.sharp && u <= 0x10ffffn && isPrint(Number(u))) out = ` '${encodeRune(Number(u))}'`;
    const hex = u.toString(16).toUpperCase();
    out = 'U+' + hex.padStart(prec, '0') + out;
    const oldZero = this.zero;
    this.zero = false;
    this.pad(out);
    this.zero = oldZero;
  }

  fmtInteger(u: bigint, base: number, isSigned: boolean, verb: string, digits: string): void {
    // u is the value as Go's uint64 holds it; signed values are reinterpreted.
    const negative = isSigned && u >= 1n << 63n;
    if (negative) u = (1n << 64n) - u;
    let prec = 0;
    if (this.precPresent) {
      prec = this.prec;
      if (prec === 0 && u === 0n) {
        const oldZero = this.zero;
        this.zero = false;
        this.writePadding(this.wid);
        this.zero = oldZero;
        return;
      }
    } else if (this.zero && this.widPresent) {
      prec = this.wid;
      if (negative || this.plus || this.space) prec--;
    }
    let s = u.toString(base);
    if (digits === UDIGITS) s = s.toUpperCase();
    if (prec > s.length) s = s.padStart(prec, '0');
    if (this.sharp) {
      if (base === 2) s = '0b' + s;
      else if (base === 8 && s[0] !== '0') s = '0' + s;
      else if (base === 16) s = '0' + digits[16] + s;
    }
    if (verb === 'O') s = '0o' + s;
    if (negative) s = '-' + s;
    else if (this.plus) s = '+' + s;
    else if (this.space) s = ' ' + s;
    const oldZero = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = oldZero;
  }

  truncateString(s: string): string {
    if (this.precPresent) {
      let n = this.prec;
      for (let i = 0; i < s.length; ) {
        if (--n < 0) return s.slice(0, i);
        i += decodeRune(s, i)[1];
      }
    }
    return s;
  }

  fmtS(s: string): void {
    this.pad(this.truncateString(s));
  }

  fmtSbx(s: string, digits: string): void {
    let length = s.length;
    if (this.precPresent && this.prec < length) length = this.prec;
    let width = 2 * length;
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2;
        width += length - 1;
      } else if (this.sharp) width += 2;
    } else {
      if (this.widPresent) this.writePadding(this.wid);
      return;
    }
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width);
    let out = this.sharp ? '0' + digits[16] : '';
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) out += this.sharp ? ' 0' + digits[16] : ' ';
      const c = s.charCodeAt(i);
      out += digits[c >> 4] + digits[c & 15];
    }
    this.buf += out;
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }

  fmtQ(s: string): void {
    s = this.truncateString(s);
    if (this.sharp && canBackquote(s)) {
      this.pad('`' + s + '`');
      return;
    }
    this.pad(quote(s, this.plus));
  }

  fmtC(c: bigint): void {
    this.pad(encodeRune(c > 0x10ffffn ? 0xfffd : Number(c)));
  }

  fmtQc(c: bigint): void {
    this.pad(quoteRune(c > 0x10ffffn ? 0xfffd : Number(c), this.plus));
  }

  fmtFloat(v: number, verb: string, prec: number): void {
    if (this.precPresent) prec = this.prec;
    let num = formatFloat(v, verb, prec);
    num = num[0] === '-' || num[0] === '+' ? num : '+' + num;
    if (this.space && num[0] === '+' && !this.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      const oldZero = this.zero;
      this.zero = false;
      if (num[1] === 'N' && !this.space && !this.plus) num = num.slice(1);
      this.pad(num);
      this.zero = oldZero;
      return;
    }
    if (this.sharp && verb !== 'b') num = this.sharpFloat(num, verb, prec);
    if (this.plus || num[0] !== '+') {
      if (this.zero && this.widPresent && this.wid > num.length) {
        this.buf += num[0];
        this.writePadding(this.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  /** %#g and friends: keep the decimal point and trailing zeros. */
  private sharpFloat(num: string, verb: string, prec: number): string {
    let digits = 0;
    if (verb === 'v' || verb === 'g' || verb === 'G' || verb === 'x') digits = prec === -1 ? 6 : prec;
    let tail = '';
    let hasDecimalPoint = false;
    let sawNonzeroDigit = false;
    for (let i = 1; i < num.length; i++) {
      const c = num[i];
      if (c === '.') {
        hasDecimalPoint = true;
        continue;
      }
      if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && verb !== 'x' && verb !== 'X')) {
        tail = num.slice(i);
        num = num.slice(0, i);
        break;
      }
      if (c !== '0') sawNonzeroDigit = true;
      if (sawNonzeroDigit) digits--;
    }
    if (!hasDecimalPoint) {
      if (num.length === 2 && num[1] === '0') digits--;
      num += '.';
    }
    while (digits-- > 0) num += '0';
    return num + tail;
  }
}
