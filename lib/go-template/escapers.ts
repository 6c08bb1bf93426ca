/**
 * The escapers behind text/template's html, js and urlquery (HTMLEscapeString, JSEscapeString
 * and net/url's QueryEscape, Go 1.19), on byte strings.
 */
import { decodeRune, isPrint } from './strconv.ts';

const HTML: Record<string, string> = {
  '\0': '\xef\xbf\xbd', // U+FFFD, as bytes
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
};

export function escapeHTML(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML[c]);
}

const JS: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
};

export function escapeJS(s: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(c < 0x20 || c >= 0x80 || JS[s[i]])) continue;
    out += s.slice(last, i);
    if (c < 0x80) out += JS[s[i]] ?? '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
    else {
      const [r, size] = decodeRune(s, i);
      out += isPrint(r) ? s.slice(i, i + size) : '\\u' + r.toString(16).toUpperCase().padStart(4, '0');
      i += size - 1;
    }
    last = i + 1;
  }
  return out + s.slice(last);
}

/** url.QueryEscape: unreserved bytes kept, space as +, every other byte %XX. */
export function queryEscape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + s.charCodeAt(i).toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
