/**
 * The sandbox boundary: the only ways template code reads data. Templates reach nothing but a
 * value's own enumerable data properties (never the prototype chain, getters or functions), so
 * `.constructor`, `.__proto__` or `.toString` cannot lead anywhere.
 */
import { TEMPLATE_LIMITS, fail, meter } from './errors.ts';

/**
 * An object's method under this symbol gives the value `json` encodes in its place (keys whose
 * value is undefined are left out), so field names seen by templates and JSON keys can differ.
 */
export const toGoJSON = Symbol('toGoJSON');

/** An object with this symbol set to true reads missing keys as nil instead of failing. */
export const lenientKeys = Symbol('lenientKeys');

export type DataRecord = Record<string, unknown>;

export const isNil = (v: unknown): v is null | undefined => v === null || v === undefined;

/** A string-keyed record: not nil, an array or a Date. */
export function isRecord(v: unknown): v is DataRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Go's name for the type the value stands for, used in messages and by %T. */
export function typeName(v: unknown): string {
  if (isNil(v)) return '<nil>';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float64';
    case 'bigint':
      return 'int';
    case 'function':
      return 'func';
    case 'symbol':
      return 'symbol';
  }
  if (v instanceof Date) return 'time.Time';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** Go's notion of truth: zero values and empty collections are false. */
export function truth(v: unknown): boolean {
  if (isNil(v)) return false;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'string':
      return v.length > 0;
  }
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Date) return true;
  return Object.keys(v as object).length > 0;
}

/** Rejects values templates must never hold: functions (never called) and symbols. */
export function checkValue(v: unknown, what: string): unknown {
  if (typeof v === 'function' || typeof v === 'symbol') fail(`${what} has unsupported type ${typeName(v)}`);
  return v;
}

/** The value of an own enumerable data property, or `missing` when there is none. */
export const missing: unique symbol = Symbol('missing');

export function ownValue(obj: object, key: string): unknown {
  const desc = Object.getOwnPropertyDescriptor(obj, key);
  if (!desc || !desc.enumerable || !('value' in desc) || typeof desc.value === 'function') return missing;
  return desc.value;
}

/** Own enumerable data properties, in insertion order. */
export function ownEntries(obj: object): [string, unknown][] {
  const out: [string, unknown][] = [];
  const keys = Object.keys(obj);
  meter.charge(keys.length);
  for (const key of keys) {
    const desc = Object.getOwnPropertyDescriptor(obj, key);
    if (!desc || !('value' in desc)) continue;
    out.push([key, checkValue(desc.value, `key "${key}"`)]);
  }
  return out;
}

/** `.name` on a value. */
export function readField(receiver: unknown, name: string): unknown {
  if (isNil(receiver)) return undefined; // as Go does for a missing map entry
  if (!isRecord(receiver)) fail(`can't evaluate field ${name} in type ${typeName(receiver)}`);
  const value = ownValue(receiver, name);
  if (value !== missing) return value;
  if ((receiver as { [lenientKeys]?: unknown })[lenientKeys] === true) return undefined;
  return fail(`can't evaluate field ${name} in type ${typeName(receiver)}`);
}

/** Compares strings by code point, i.e. the byte order Go uses for UTF-8 strings. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

// Surrogates encode code points above U+FFFF, so they must sort after U+E000..U+FFFF.
const codeUnitRank = (c: number) => (c >= 0xd800 && c < 0xe000 ? c + 0x2000 : c >= 0xe000 ? c - 0x800 : c);

/** Own keys sorted like Go sorts map keys when ranging over or printing a map. */
export function sortedEntries(obj: object): [string, unknown][] {
  let entries = meter.sortedKeys?.get(obj);
  if (!entries) {
    entries = ownEntries(obj).sort((a, b) => compareStrings(a[0], b[0]));
    meter.charge(entries.length * Math.ceil(Math.log2(entries.length + 1)));
    meter.sortedKeys?.set(obj, entries);
  }
  return entries;
}

/** Date as Go's RFC3339Nano (UTC): fractional seconds only when non-zero, without trailing zeros. */
export function formatTime(d: Date): string {
  const t = d.getTime();
  if (Number.isNaN(t)) fail('invalid time value');
  const year = d.getUTCFullYear();
  if (year < 0 || year > 9999) fail('time year outside of range [0,9999]');
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const ms = d.getUTCMilliseconds();
  const frac = ms ? '.' + pad(ms, 3).replace(/0+$/, '') : '';
  return (
    `${pad(year, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}Z`
  );
}

/** Guards recursive walks over data (printing, encoding) against deep or cyclic values. */
export function checkDepth(depth: number): void {
  meter.charge(1);
  if (depth > TEMPLATE_LIMITS.maxDepth)
    fail(`value nesting too deep (more than ${TEMPLATE_LIMITS.maxDepth} levels; cyclic?)`);
}
