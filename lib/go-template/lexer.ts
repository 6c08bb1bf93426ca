/**
 * Tokenizer for Go's text/template syntax. It follows the rules of Go's text/template/parse lexer
 * (trim markers, comments, what may follow a field name) so that templates written for the Go
 * service tokenize identically; it produces a token array instead of Go's goroutine stream.
 */
import { errorAt } from './errors.ts';
import { toBytes } from './types.ts';
import { unquote } from './unquote.ts';

export type TokenType =
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'field' // value: the name without the dot
  | 'variable' // value: the name with the $
  | 'identifier'
  | 'keyword'
  | 'dot'
  | 'string' // value: the unquoted text, as a byte string (Go strings are bytes)
  | 'number' // value: the literal as written
  | 'complex' // value: the literal as written, like 1+2i
  | 'char' // value: the rune's number, in decimal
  | 'bool'
  | 'nil'
  | 'pipe'
  | 'declare'
  | 'assign'
  | 'leftParen'
  | 'rightParen'
  | 'punct' // any other printable ASCII; always a parse error, reported with context by the parser
  | 'eof';

export interface Token {
  type: TokenType;
  value: string;
  pos: number;
  end: number;
}

const KEYWORDS = new Set(['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'template', 'with']);

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const ALNUM = /^[\p{L}\p{Nd}_]$/u;

/** Length in code units of the letter, digit or underscore at s[i], or 0 if there is none. */
function alnumAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95) return 1;
  if (c < 128 || Number.isNaN(c)) return 0;
  const ch = String.fromCodePoint(s.codePointAt(i)!);
  return ALNUM.test(ch) ? ch.length : 0;
}

export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  const error = (at: number, reason: string): never => {
    throw errorAt(src, at, reason);
  };
  const push = (type: TokenType, value: string, pos: number, end: number) => tokens.push({ type, value, pos, end });
  // Code point at i (fields and identifiers may use any Unicode letter).
  const charAt = (i: number) => (i < src.length ? String.fromCodePoint(src.codePointAt(i)!) : undefined);
  const atRightDelim = (i: number): 0 | 2 | 4 => {
    if (isSpace(src[i]) && src[i + 1] === '-' && src.startsWith('}}', i + 2)) return 4;
    return src.startsWith('}}', i) ? 2 : 0;
  };
  // A field, variable or identifier must be followed by something that can end it.
  const atTerminator = (i: number) => {
    const c = src[i];
    return i >= src.length || isSpace(c) || '.,|:()'.includes(c) || src.startsWith('}}', i);
  };

  let pos = 0;
  let trimLeading = false;
  while (pos <= src.length) {
    const open = src.indexOf('{{', pos);
    let textStart = pos;
    let textEnd = open === -1 ? src.length : open;
    const trimTrailing = open !== -1 && src[open + 2] === '-' && isSpace(src[open + 3]);
    if (trimLeading) while (textStart < textEnd && isSpace(src[textStart])) textStart++;
    if (trimTrailing) while (textEnd > textStart && isSpace(src[textEnd - 1])) textEnd--;
    if (textEnd > textStart) push('text', toBytes(src.slice(textStart, textEnd)), textStart, textEnd);
    if (open === -1) break;

    const p = open + 2 + (trimTrailing ? 2 : 0);
    if (src.startsWith('/*', p)) {
      const close = src.indexOf('*/', p + 2);
      if (close === -1) error(open, 'unclosed comment');
      const delim = atRightDelim(close + 2);
      if (!delim) error(open, 'comment ends before closing delimiter');
      trimLeading = delim === 4;
      pos = close + 2 + delim;
      continue;
    }
    push('leftDelim', '{{', open, p);
    pos = lexAction(p, open);
  }
  push('eof', '', src.length, src.length);
  return tokens;

  /** Tokens of one action from p; returns the offset after its closing delimiter. */
  function lexAction(p: number, open: number): number {
    let parens = 0;
    for (;;) {
      const delim = atRightDelim(p);
      if (delim) {
        if (parens > 0) error(open, 'unclosed left paren');
        push('rightDelim', '}}', p, p + delim);
        trimLeading = delim === 4;
        return p + delim;
      }
      if (p >= src.length) error(open, 'unclosed action');
      const start = p;
      const c = src[p];
      if (isSpace(c)) {
        while (isSpace(src[p])) p++;
        // " -}}" is a trim marker: leave its space for atRightDelim.
        if (src[p] === '-' && src.startsWith('}}', p + 1)) p--;
        if (p > start) push('space', ' ', start, p);
      } else if (c === '=') {
        push('assign', '=', p, ++p);
      } else if (c === ':') {
        if (src[p + 1] !== '=') error(p, 'expected :=');
        push('declare', ':=', p, (p += 2));
      } else if (c === '|') {
        push('pipe', '|', p, ++p);
      } else if (c === '"') {
        p = lexQuoted(p);
      } else if (c === '`') {
        const close = src.indexOf('`', p + 1);
        if (close === -1) error(p, 'unterminated raw quoted string');
        push('string', toBytes(src.slice(p + 1, close).replace(/\r/g, '')), p, (p = close + 1));
      } else if (c === "'") {
        p = lexQuoted(p);
      } else if (c === '$' || (c === '.' && !(src[p + 1] >= '0' && src[p + 1] <= '9'))) {
        p = lexFieldOrVariable(p);
      } else if (c === '+' || c === '-' || c === '.' || (c >= '0' && c <= '9')) {
        p = lexNumber(p);
      } else if (c === '(') {
        parens++;
        push('leftParen', '(', p, ++p);
      } else if (c === ')') {
        if (--parens < 0) error(p, 'unexpected right paren');
        push('rightParen', ')', p, ++p);
      } else if (alnumAt(src, p)) {
        for (let n; (n = alnumAt(src, p)); ) p += n;
        if (!atTerminator(p)) error(p, `bad character ${describeChar(charAt(p)!)}`);
        const word = src.slice(start, p);
        const type = KEYWORDS.has(word)
          ? 'keyword'
          : word === 'true' || word === 'false'
            ? 'bool'
            : word === 'nil'
              ? 'nil'
              : 'identifier';
        push(type, word, start, p);
      } else if (c.charCodeAt(0) > 0x20 && c.charCodeAt(0) < 0x7f) {
        push('punct', c, p, ++p);
      } else {
        error(p, `unrecognized character in action: ${describeChar(charAt(p)!)}`);
      }
    }
  }

  function lexFieldOrVariable(p: number): number {
    const start = p++;
    const isVar = src[start] === '$';
    if (atTerminator(p)) {
      push(isVar ? 'variable' : 'dot', src[start], start, p);
      return p;
    }
    for (let n; (n = alnumAt(src, p)); ) p += n;
    if (!atTerminator(p)) error(p, `bad character ${describeChar(charAt(p)!)}`);
    push(isVar ? 'variable' : 'field', src.slice(isVar ? start : start + 1, p), start, p);
    return p;
  }

  // Go's lexNumber and scanNumber; the parser decides whether the text is a valid number.
  function lexNumber(p: number): number {
    const start = p;
    const scan = (): boolean => {
      const accept = (chars: string) => (p < src.length && chars.includes(src[p]) ? (p++, true) : false);
      const acceptRun = (chars: string) => {
        while (p < src.length && chars.includes(src[p])) p++;
      };
      accept('+-');
      let digits = '0123456789_';
      if (accept('0')) {
        if (accept('xX')) digits = '0123456789abcdefABCDEF_';
        else if (accept('oO')) digits = '01234567_';
        else if (accept('bB')) digits = '01_';
      }
      acceptRun(digits);
      if (accept('.')) acceptRun(digits);
      if (digits.length === 11 && accept('eE')) {
        accept('+-');
        acceptRun('0123456789_');
      }
      if (digits.length === 23 && accept('pP')) {
        accept('+-');
        acceptRun('0123456789_');
      }
      accept('i');
      if (alnumAt(src, p)) {
        p += alnumAt(src, p);
        return false;
      }
      return true;
    };
    const bad = () => error(start, `bad number syntax: ${JSON.stringify(src.slice(start, p))}`);
    if (!scan()) bad();
    if (src[p] === '+' || src[p] === '-') {
      // Complex: 1+2i. No spaces, must end in 'i'.
      if (!scan() || src[p - 1] !== 'i') bad();
      push('complex', src.slice(start, p), start, p);
    } else push('number', src.slice(start, p), start, p);
    return p;
  }

  function lexQuoted(p: number): number {
    const start = p;
    const quote = src[p++];
    for (;;) {
      const c = src[p++];
      if (c === '\\') {
        if (src[p] === undefined || src[p] === '\n') break;
        p++;
      } else if (c === undefined || c === '\n') {
        break;
      } else if (c === quote) {
        const body = unquote(src.slice(start + 1, p - 1), quote, () => error(start, 'invalid escape in quoted string'));
        if (quote === "'") {
          if (body.runes.length !== 1) error(start, `malformed character constant: ${src.slice(start, p)}`);
          push('char', String(body.runes[0]), start, p);
        } else push('string', body.bytes, start, p);
        return p;
      }
    }
    return error(start, quote === '"' ? 'unterminated quoted string' : 'unterminated character constant');
  }
}

/** Go's %#U, used in lexer messages: U+0023 '#'. */
function describeChar(c: string): string {
  const hex = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}
