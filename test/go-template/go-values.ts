/**
 * Go values for template tests: JSON-like data as encoding/json decodes it into an interface {},
 * and the sample payload.
 */
import {
  T,
  appendedCap,
  makeMap,
  makeSlice,
  mapOf,
  sliceOf,
  toBytes,
  val,
  type Value,
} from '../../lib/go-template/index.ts';
import { sampleEventData } from '../../src/webhooks/event-data.ts';
import type { PostEventKind } from '../../src/webhook-store/events.ts';

const ANY_SLICE = sliceOf(T.any);
const ANY_MAP = mapOf('map[string]interface {}', T.string, T.any);

/** json.Unmarshal into interface {}: float64, string, bool, []interface {}, map[string]interface {}. */
export function goData(x: unknown): Value {
  if (typeof x === 'number') return val(T.float64, x);
  if (typeof x === 'string') return val(T.string, toBytes(x));
  if (typeof x === 'boolean') return val(T.bool, x);
  const wrap = (v: unknown) => val(T.any, v === null ? null : goData(v));
  if (Array.isArray(x)) return makeSlice(ANY_SLICE, x.map(wrap), appendedCap(x.length));
  if (x && typeof x === 'object')
    return makeMap(
      ANY_MAP,
      Object.entries(x).map(([k, v]) => [toBytes(k), wrap(v)]),
    );
  throw new Error(`no Go value for ${String(x)}`);
}

/** A []interface {} of the given values. */
export const goList = (items: Value[]): Value =>
  makeSlice(
    ANY_SLICE,
    items.map((v) => val(T.any, v)),
    appendedCap(items.length),
  );

export const goInt = (n: number): Value => val(T.int, BigInt(n));

/** The preview's sample payload for `event`, as templates see it. */
export const sample = (event: PostEventKind = 'update'): Value => sampleEventData(event, 'https://media.example').value;
