/**
 * The default template's body (event-data.ts's DEFAULT_TEMPLATE: three `json` values in fixed text) written
 * straight from the payload's JSON form, without the template engine: the same bytes, in a third (a create) to
 * half (an update with changes) of the time (bench/notes/webhook-drain.md, session 37). Most webhooks keep the
 * default, and a backlog renders it once per event. test/webhooks/default-body.test.ts holds it byte for byte to
 * the engine over random payloads.
 *
 * What it reproduces of the engine's `json` (Go's encoding/json on payload-types.ts's values): structs' fields in
 * declaration order (PayloadJSON's key order), the Changes map's keys sorted (all ASCII field names, so UTF-16
 * order is byte order), an absent uploader left out (omitempty) and an absent initiator as null, and Go's string
 * escapes: \n \r \t by name, other control characters and <, >, &, U+2028, U+2029 as \u00XX or \u20XX, text that
 * is not well-formed as U+FFFD (the engine's values hold UTF-8, where a lone surrogate cannot be).
 */
import type { PayloadJSON, UserJSON } from './payload-types.ts';

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** String.prototype.toWellFormed (ES2024; the compiler's library here is older): lone surrogates as U+FFFD. */
const wellFormed = (s: string): string => (s as string & { toWellFormed(): string }).toWellFormed();

/** Characters JSON.stringify writes otherwise than Go (any surrogate: it may be a lone one). */
const NOT_AS_GO = /[\b\f<>&\u2028\u2029\ud800-\udfff]/;

/** A JSON string as Go writes it: JSON.stringify's, with \b and \f spelled out and the HTML-safe escapes. */
function quote(s: string): string {
  if (!NOT_AS_GO.test(s)) return JSON.stringify(s);
  return (
    JSON.stringify(wellFormed(s))
      // Pairs are read left to right, so an escaped backslash followed by a letter stays as it is.
      .replace(/\\([\\bf])/g, (m, c: string) => (c === 'b' ? '\\u0008' : c === 'f' ? '\\u000c' : m))
      .replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c])
  );
}

const user = (u: UserJSON | undefined): string => (u ? `{"id":${u.id},"username":${quote(u.username)}}` : 'null');

const oldOrNew = (x: string | string[]): string => (typeof x === 'string' ? quote(x) : `[${x.map(quote).join(',')}]`);

export function defaultBody(p: PayloadJSON): string {
  const d = p.data;
  let data = `{"imageID":${d.imageID},"text":${quote(d.text)},"rating":${quote(d.rating)},"tags":[${d.tags.map(quote).join(',')}],"imageURL":${quote(d.imageURL)},"createdAt":${quote(d.createdAt)}`;
  if (d.changes) {
    const changes = d.changes;
    const entries = Object.keys(changes)
      .sort()
      .map((k) => `${quote(k)}:{"old":${oldOrNew(changes[k].old)},"new":${oldOrNew(changes[k].new)}}`);
    data += `,"changes":{${entries.join(',')}}`;
  }
  if (d.uploader) data += `,"uploader":${user(d.uploader)}`;
  return `{"event": ${quote(p.event)}, "data": ${data}}, "initiator": ${user(p.initiator)}}`;
}
