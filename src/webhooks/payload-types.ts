/**
 * The original service's payload types (MoveToEx/longhub, backend/internal/webhook/payload.go) as
 * Go values for the template engine, so templates render exactly as they did there
 * (docs/decisions.md §8): structs that print as `{7 alice}`, int64 numbers, a nil Changes outside
 * updates. The original decoded each payload from JSON before rendering it, so the values are
 * what encoding/json gives: Changes' Old and New hold a string or a []interface {}, and slices
 * have the capacity the decoder left. One difference on purpose: CreatedAt is the interface's
 * ISO 8601 string where the original held a time.Time.
 */
import {
  T,
  appendedCap,
  decodedCap,
  makeMap,
  makeSlice,
  mapOf,
  named,
  ptr,
  ptrTo,
  sliceOf,
  structOf,
  toBytes,
  val,
  type Value,
} from '../../lib/go-template/index.ts';

/** The payload as the original's JSON has it (json tags), the form its delivery path decoded. */
export interface PayloadJSON {
  event: 'create' | 'update' | 'delete';
  data: {
    imageID: number;
    text: string;
    rating: string;
    tags: string[];
    imageURL: string;
    createdAt: string;
    changes?: Record<string, { old: string | string[]; new: string | string[] }>;
    uploader?: UserJSON;
  };
  initiator?: UserJSON;
}

export interface UserJSON {
  id: number;
  username: string;
}

const USER = structOf('webhook.User', [
  { name: 'ID', type: T.int64, json: 'id' },
  { name: 'Username', type: T.string, json: 'username' },
]);
const VALUE_CHANGE = structOf('webhook.ValueChange', [
  { name: 'Old', type: T.any, json: 'old' },
  { name: 'New', type: T.any, json: 'new' },
]);
const CHANGES = mapOf('webhook.Changes', T.string, VALUE_CHANGE);
const RATING = named('string', 'sqlc.Rating');
const DATA = structOf('webhook.Data', [
  { name: 'ImageID', type: T.int64, json: 'imageID' },
  { name: 'Text', type: T.string, json: 'text' },
  { name: 'Rating', type: RATING, json: 'rating' },
  { name: 'Tags', type: sliceOf(T.string), json: 'tags' },
  { name: 'ImageURL', type: T.string, json: 'imageURL' },
  { name: 'CreatedAt', type: T.string, json: 'createdAt' },
  { name: 'Changes', type: ptrTo(CHANGES), json: 'changes', omitempty: true },
  { name: 'Uploader', type: ptrTo(USER), json: 'uploader', omitempty: true },
]);
const TEMPLATE_FIELDS = structOf('webhook.templateFields', [
  { name: 'Event', type: T.string },
  { name: 'Data', type: DATA, embedded: true },
  { name: 'Initiator', type: ptrTo(USER) },
]);
const ANY_SLICE = sliceOf(T.any);

const string = (s: string) => val(T.string, toBytes(s));

function user(u: UserJSON | undefined): Value {
  if (!u) return val(ptrTo(USER), null);
  return ptr(ptrTo(USER), val(USER, [val(T.int64, BigInt(u.id)), string(u.username)]));
}

/** A JSON value decoded into an interface {}: a string, or a []interface {} of strings. */
function anyValue(x: string | string[]): Value {
  if (typeof x === 'string') return val(T.any, string(x));
  const items = x.map((s) => val(T.any, string(s)));
  return val(T.any, makeSlice(ANY_SLICE, items, appendedCap(items.length)));
}

/** The value templates see (the original's templateFields) for one payload. */
export function payloadValue(p: PayloadJSON): Value {
  const d = p.data;
  const changes = d.changes
    ? ptr(
        ptrTo(CHANGES),
        makeMap(
          CHANGES,
          Object.entries(d.changes).map(([k, c]) => [
            toBytes(k),
            val(VALUE_CHANGE, [anyValue(c.old), anyValue(c.new)]),
          ]),
        ),
      )
    : val(ptrTo(CHANGES), null);
  const tags = d.tags.map(string);
  const data = val(DATA, [
    val(T.int64, BigInt(d.imageID)),
    string(d.text),
    val(RATING, toBytes(d.rating)),
    makeSlice(DATA.fields![3].type, tags, decodedCap(tags.length)),
    string(d.imageURL),
    string(d.createdAt),
    changes,
    user(d.uploader),
  ]);
  return val(TEMPLATE_FIELDS, [string(p.event), data, user(p.initiator)]);
}
