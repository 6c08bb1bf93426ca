/**
 * The body of a Go quoted string or character literal, as strconv's Unquote and UnquoteChar read
 * it: the bytes of the string (\x and octal escapes are bytes) and, for a character constant, its
 * runes as strconv.UnquoteChar reads them (there \xff is the rune 255).
 */
export function unquote(body: string, quote: string, bad: () => never): { bytes: string; runes: number[] } {
  const bytes: number[] = [];
  const runes: number[] = [];
  const pushUtf8 = (s: string) => {
    runes.push(s.codePointAt(0)!);
    bytes.push(...Buffer.from(s, 'utf8'));
  };
  for (let i = 0; i < body.length; ) {
    const cp = body.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (ch !== '\\') {
      pushUtf8(ch);
      continue;
    }
    const e = body[i++];
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
    };
    if (e in simple) pushUtf8(simple[e]);
    else if (e === quote) pushUtf8(quote);
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i, i + n);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) bad();
      i += n;
      const v = parseInt(hex, 16);
      if (e === 'x') {
        bytes.push(v);
        runes.push(v);
      } else if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) bad();
      else pushUtf8(String.fromCodePoint(v));
    } else if (e >= '0' && e <= '7') {
      const oct = body.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) bad();
      i += 2;
      bytes.push(parseInt(oct, 8));
      runes.push(parseInt(oct, 8));
    } else bad();
  }
  return { bytes: Buffer.from(bytes).toString('latin1'), runes };
}
