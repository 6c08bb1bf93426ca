/**
 * encoding/json's Marshal (Go 1.19) on typed values, as the original's `json` function calls it:
 * struct fields in declaration order under their json tags (omitempty honoured, embedded
 * structs' fields promoted), map keys sorted, HTML-safe string escapes (<, >, & as \u003c...),
 * invalid UTF-8 as \ufffd, floats as Go writes them. Output is a byte string.
 */
import { sliceItems, sortedMapEntries } from './collections.ts';
import { TEMPLATE_LIMITS, fail, meter } from './errors.ts';
import { formatFloat } from './ftoa.ts';
import { decodeRune, RUNE_ERROR } from './strconv.ts';
import { lengthOf, type Box, type RV, type Value } from './types.ts';

export function marshal(value: RV): string {
  const out = encode(value, 0);
  if (out.length > TEMPLATE_LIMITS.maxOutputBytes) fail('json: encoded value too large');
  return out;
}

function isEmpty(v: Value): boolean {
  switch (v.t.kind) {
    case 'bool':
      return v.v === false;
    case 'int':
    case 'int64':
    case 'uint8':
      return v.v === 0n;
    case 'float64':
      return v.v === 0;
    case 'string':
    case 'slice':
    case 'map':
      return lengthOf(v) === 0;
    case 'ptr':
    case 'interface':
      return v.v === null;
  }
  return false;
}

/** A struct's JSON fields in order, embedded structs' fields in their place. */
function jsonFields(v: Value, out: [string, Value][] = []): [string, Value][] {
  v.t.fields!.forEach((f, i) => {
    const fv = (v.v as Value[])[i];
    if (f.embedded && f.json === undefined) jsonFields(fv, out);
    else if (!(f.omitempty && isEmpty(fv))) out.push([f.json ?? f.name, fv]);
  });
  return out;
}

function encode(v: RV, depth: number): string {
  meter.charge(1);
  if (depth > TEMPLATE_LIMITS.maxDepth) fail('json: value nested too deep');
  if (v === null) return 'null';
  let out: string;
  switch (v.t.kind) {
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'int':
    case 'int64':
    case 'uint8':
      return (v.v as bigint).toString();
    case 'float64':
      return formatJSONFloat(v.v as number);
    case 'complex128':
      return fail(`json: unsupported type: ${v.t.name}`);
    case 'string':
      return quoteJSON(v.v as string);
    case 'ptr':
    case 'interface':
      if (v.v === null) return 'null';
      return encode(v.t.kind === 'ptr' ? (v.v as Box).target : (v.v as Value), depth + 1);
    case 'slice':
      if (v.v === null) return 'null';
      out = '[';
      for (const e of sliceItems(v)) out += (out.length > 1 ? ',' : '') + encode(e, depth + 1);
      out += ']';
      break;
    case 'map':
      if (v.v === null) return 'null';
      out = '{';
      for (const [k, e] of sortedMapEntries(v)) {
        out += (out.length > 1 ? ',' : '') + quoteJSON(k.v as string) + ':' + encode(e, depth + 1);
      }
      out += '}';
      break;
    case 'struct':
      out = '{';
      for (const [name, e] of jsonFields(v))
        out += (out.length > 1 ? ',' : '') + quoteJSON(name) + ':' + encode(e, depth + 1);
      out += '}';
      break;
  }
  // Checked as it grows, so a huge value fails before it is all built.
  if (out.length > TEMPLATE_LIMITS.maxOutputBytes) fail('json: encoded value too large');
  return out;
}

function formatJSONFloat(f: number): string {
  if (!Number.isFinite(f)) fail(`json: unsupported value: ${Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf'}`);
  const abs = Math.abs(f);
  const e = abs !== 0 && (abs < 1e-6 || abs >= 1e21);
  const s = formatFloat(f, e ? 'e' : 'f', -1);
  // Go writes 1e-07 as 1e-7.
  return e ? s.replace(/e-0(\d)$/, 'e-$1') : s;
}

const HEX = '0123456789abcdef';

/** Bytes json writes as they are: printable ASCII but for " \\ < > &. */
const PLAIN = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7f]*$/;

/**
 * Byte strings json writes as they are: PLAIN's bytes and well-formed UTF-8 sequences, but for
 * U+2028 and U+2029 (E2 80 A8/A9, which json escapes). Checked in one pass, so text in other
 * scripts does not take the byte-by-byte path below.
 */
const PLAIN_UTF8 =
  /^(?:[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|\xe2(?:\x80[\x80-\xa7\xaa-\xbf]|[\x81-\xbf][\x80-\xbf])|[\xe1\xe3-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2})*$/;

/** encodeState.string with escapeHTML. */
export function quoteJSON(s: string): string {
  if (PLAIN.test(s) || PLAIN_UTF8.test(s)) return '"' + s + '"';
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; ) {
    const b = s.charCodeAt(i);
    if (b < 0x80) {
      if (b >= 0x20 && b !== 0x22 && b !== 0x5c && b !== 0x3c && b !== 0x3e && b !== 0x26) {
        i++;
        continue;
      }
      out += s.slice(start, i) + '\\';
      if (b === 0x22 || b === 0x5c) out += s[i];
      else if (b === 0x0a) out += 'n';
      else if (b === 0x0d) out += 'r';
      else if (b === 0x09) out += 't';
      else out += 'u00' + HEX[b >> 4] + HEX[b & 15];
      start = ++i;
      continue;
    }
    const [c, size] = decodeRune(s, i);
    if ((c === RUNE_ERROR && size === 1) || c === 0x2028 || c === 0x2029) {
      out += s.slice(start, i) + (c === RUNE_ERROR ? '\\ufffd' : '\\u202' + HEX[c & 15]);
      start = i + size;
    }
    i += size;
  }
  return out + s.slice(start) + '"';
}
