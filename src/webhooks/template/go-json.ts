/**
 * JSON exactly as Go's json.Marshal writes it, so webhook bodies are byte-for-byte what the Go
 * service sent: HTML-safe string escapes, no spaces, RFC 3339 times. Object keys keep insertion
 * order (the caller controls it); an object may supply its JSON form through `toGoJSON`.
 */
import { TEMPLATE_LIMITS, fail } from './errors.ts';
import { checkDepth, formatTime, isNil, ownEntries, toGoJSON } from './values.ts';

export function encodeGoJSON(value: unknown): string {
  const parts: string[] = [];
  let size = 0;
  const emit = (s: string) => {
    size += s.length;
    if (size > TEMPLATE_LIMITS.maxOutputBytes) fail('json: encoded value too large');
    parts.push(s);
  };
  encode(value, 0, emit);
  return parts.join('');
}

function encode(v: unknown, depth: number, emit: (s: string) => void): void {
  checkDepth(depth);
  if (isNil(v)) return emit('null');
  switch (typeof v) {
    case 'string':
      return emit(quoteJSON(v));
    case 'boolean':
      return emit(String(v));
    case 'number':
      if (!Number.isFinite(v)) fail(`json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`);
      // JS and Go agree on the shortest digits and switch to exponents at the same bounds (1e-6, 1e21).
      return emit(String(v));
    case 'bigint':
      return emit(v.toString());
    case 'function':
    case 'symbol':
      return fail(`json: unsupported type: ${typeof v === 'function' ? 'func' : 'symbol'}`);
  }
  if (v instanceof Date) return emit(`"${formatTime(v)}"`);
  if (Array.isArray(v)) {
    emit('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) emit(',');
      encode(v[i], depth + 1, emit);
    }
    return emit(']');
  }
  const custom = (v as { [toGoJSON]?: unknown })[toGoJSON];
  if (typeof custom === 'function') return encode(custom.call(v), depth + 1, emit);
  emit('{');
  let first = true;
  for (const [key, value] of ownEntries(v as object)) {
    // An undefined property is an absent one (like a Go field with omitempty), not null.
    if (value === undefined) continue;
    if (!first) emit(',');
    first = false;
    emit(quoteJSON(key));
    emit(':');
    encode(value, depth + 1, emit);
  }
  emit('}');
}

const HEX = '0123456789abcdef';
const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
// Characters Go escapes: controls, quote, backslash, the HTML-sensitive <, > and &, the JS line
// separators U+2028/U+2029, and lone surrogates (invalid UTF-8, which Go writes as U+FFFD).
const NEEDS_ESCAPE =
  /[\u0000-\u001f"\\<>&\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function quoteJSON(s: string): string {
  return (
    '"' +
    s.replace(NEEDS_ESCAPE, (c) => {
      if (SHORT[c]) return SHORT[c];
      if (c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) < 0xe000) return '\\ufffd';
      const n = c.charCodeAt(0);
      return '\\u' + HEX[(n >> 12) & 15] + HEX[(n >> 8) & 15] + HEX[(n >> 4) & 15] + HEX[n & 15];
    }) +
    '"'
  );
}
