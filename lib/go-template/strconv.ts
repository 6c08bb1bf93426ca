/**
 * The parts of Go's unicode/utf8 and strconv that fmt and the escapers use, on byte strings (one
 * char per byte, as Go strings are bytes).
 */
export const RUNE_ERROR = 0xfffd;

/** A continuation byte's six bits, or -1 when the byte at i is not one. */
function cont(s: string, i: number): number {
  const b = s.charCodeAt(i);
  return b >= 0x80 && b <= 0xbf ? b & 0x3f : -1;
}

/** utf8.DecodeRuneInString at i: [rune, size]; an invalid encoding is [RUNE_ERROR, 1]. */
export function decodeRune(s: string, i: number): [number, number] {
  const b0 = s.charCodeAt(i);
  if (b0 < 0x80) return [b0, 1];
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(s, i + 1);
    return c1 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x1f) << 6) | c1, 2];
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const b1 = s.charCodeAt(i + 1);
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf;
    if (!(b1 >= lo && b1 <= hi)) return [RUNE_ERROR, 1];
    const c2 = cont(s, i + 2);
    return c2 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | c2, 3];
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const b1 = s.charCodeAt(i + 1);
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf;
    if (!(b1 >= lo && b1 <= hi)) return [RUNE_ERROR, 1];
    const c2 = cont(s, i + 2);
    const c3 = cont(s, i + 3);
    if (c2 < 0 || c3 < 0) return [RUNE_ERROR, 1];
    return [((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | (c2 << 6) | c3, 4];
  }
  return [RUNE_ERROR, 1];
}

export const validRune = (r: number): boolean => (r >= 0 && r < 0xd800) || (r > 0xdfff && r <= 0x10ffff);

/** utf8.EncodeRune as a byte string; an invalid rune encodes U+FFFD. */
export function encodeRune(r: number): string {
  if (!validRune(r)) r = RUNE_ERROR;
  if (r < 0x80) return String.fromCharCode(r);
  if (r < 0x800) return String.fromCharCode(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  if (r < 0x10000) return String.fromCharCode(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  return String.fromCharCode(0xf0 | (r >> 18), 0x80 | ((r >> 12) & 0x3f), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
}

/** utf8.RuneCountInString. */
export function runeCount(s: string): number {
  if (/^[\x00-\x7f]*$/.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; n++) i += decodeRune(s, i)[1];
  return n;
}

const GRAPHIC = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** strconv.IsPrint (and unicode.IsPrint): letters, marks, numbers, punctuation, symbols, ASCII space. */
export function isPrint(r: number): boolean {
  if (r <= 0xff) return (r >= 0x20 && r <= 0x7e) || (r >= 0xa1 && r !== 0xad);
  return validRune(r) && GRAPHIC.test(String.fromCodePoint(r));
}

const HEX = '0123456789abcdef';
const NAMED: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };

function escapedRune(r: number, quote: number, asciiOnly: boolean): string {
  if (r === quote || r === 0x5c) return '\\' + String.fromCharCode(r);
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) return encodeRune(r);
  if (NAMED[r]) return NAMED[r];
  if (r < 0x20 || r === 0x7f) return '\\x' + HEX[r >> 4] + HEX[r & 15];
  if (!validRune(r)) r = RUNE_ERROR;
  if (r < 0x10000) return '\\u' + r.toString(16).padStart(4, '0');
  return '\\U' + r.toString(16).padStart(8, '0');
}

/** strconv.Quote (asciiOnly: QuoteToASCII) of a byte string. */
export function quote(s: string, asciiOnly = false): string {
  let out = '"';
  for (let i = 0; i < s.length; ) {
    const [r, size] = decodeRune(s, i);
    if (size === 1 && r === RUNE_ERROR) {
      const b = s.charCodeAt(i);
      out += '\\x' + HEX[b >> 4] + HEX[b & 15];
    } else out += escapedRune(r, 0x22, asciiOnly);
    i += size;
  }
  return out + '"';
}

/** strconv.QuoteRune (asciiOnly: QuoteRuneToASCII). */
export function quoteRune(r: number, asciiOnly = false): string {
  if (!validRune(r)) r = RUNE_ERROR;
  return "'" + escapedRune(r, 0x27, asciiOnly) + "'";
}

/** strconv.CanBackquote. */
export function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length; ) {
    const [r, size] = decodeRune(s, i);
    i += size;
    if (size > 1) {
      if (r === 0xfeff) return false;
      continue;
    }
    if (r === RUNE_ERROR) return false;
    if ((r < 0x20 && r !== 9) || r === 0x60 || r === 0x7f) return false;
  }
  return true;
}
