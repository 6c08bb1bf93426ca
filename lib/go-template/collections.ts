/**
 * Slices and maps as Go holds them. A slice is a window on a backing array with a capacity, so
 * `slice` may reach past the length up to the capacity as Go's does; the data's slices have the
 * capacities Go's JSON decoding gives them (the original decoded each payload before rendering).
 */
import { meter } from './errors.ts';
import { str, val, zero, type GoType, type Value } from './types.ts';

export interface SliceData {
  arr: Value[];
  off: number;
  len: number;
  cap: number;
}

/** The capacity encoding/json leaves on a decoded []T (grown by half, at least 4). */
export function decodedCap(n: number): number {
  let cap = 0;
  while (cap < n) cap = Math.max(cap + Math.floor(cap / 2), 4);
  return cap;
}

/** The capacity append leaves on a []interface {} built one element at a time (small sizes). */
export function appendedCap(n: number): number {
  let cap = 0;
  while (cap < n) cap = cap === 0 ? 1 : cap < 256 ? cap * 2 : cap + Math.floor((cap + 768) / 4);
  return cap;
}

export function makeSlice(t: GoType, items: Value[], cap = items.length): Value {
  const arr = items.slice();
  while (arr.length < cap) arr.push(zero(t.elem!));
  return val(t, { arr, off: 0, len: items.length, cap } satisfies SliceData);
}

export function sliceItems(x: Value): Value[] {
  if (x.v === null) return [];
  const s = x.v as SliceData;
  meter.charge(s.len);
  return s.arr.slice(s.off, s.off + s.len);
}

export function sliceIndex(x: Value, i: number): Value {
  const s = x.v as SliceData;
  return s.arr[s.off + i];
}

export const sliceCap = (x: Value): number => (x.v === null ? 0 : (x.v as SliceData).cap);

/** reflect.Value.Slice3 (max omitted: Slice). */
export function reslice(x: Value, i: number, j: number, k?: number): Value {
  const s = x.v as SliceData | null;
  if (s === null) return val(x.t, null);
  const cap = (k ?? s.cap) - i;
  return val(x.t, { arr: s.arr, off: s.off + i, len: j - i, cap } satisfies SliceData);
}

export function makeMap(t: GoType, entries: [string, Value][]): Value {
  return val(t, new Map(entries));
}

/** A map's entries sorted by key, as fmt and range order them. */
export function sortedMapEntries(x: Value): [Value, Value][] {
  if (x.v === null) return [];
  const m = x.v as Map<string, Value>;
  meter.charge(m.size);
  return [...m.keys()].sort().map((k) => [str(k), m.get(k)!]);
}
