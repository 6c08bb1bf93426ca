/**
 * The functions templates may call: Go's text/template builtins (minus call, html, js, urlquery)
 * plus `json`. They receive already-evaluated arguments, except `and`/`or`, which the evaluator
 * short-circuits itself and which are listed here only for the parser and arity checks.
 */
import { fail } from './errors.ts';
import { sprint, sprintf, sprintln } from './format.ts';
import { encodeGoJSON } from './go-json.ts';
import {
  checkValue,
  compareStrings,
  isNil,
  isRecord,
  missing,
  ownEntries,
  ownValue,
  truth,
  typeName,
} from './values.ts';

export interface TemplateFunction {
  /** Fewest arguments; `max` is Infinity for variadic functions. */
  min: number;
  max: number;
  call(args: unknown[]): unknown;
}

const fn = (min: number, max: number, call: (args: unknown[]) => unknown): TemplateFunction => ({ min, max, call });
const lazy = (): unknown => fail('internal error: short-circuit function called eagerly');

export const FUNCTIONS: Readonly<Record<string, TemplateFunction>> = Object.freeze({
  and: fn(1, Infinity, lazy),
  or: fn(1, Infinity, lazy),
  not: fn(1, 1, ([a]) => !truth(a)),
  len: fn(1, 1, ([a]) => length(a)),
  index: fn(1, Infinity, ([item, ...keys]) => keys.reduce(indexOne, item)),
  slice: fn(1, 4, ([item, ...idx]) => slice(item, idx)),
  print: fn(0, Infinity, sprint),
  println: fn(0, Infinity, sprintln),
  printf: fn(1, Infinity, ([format, ...args]) => {
    if (typeof format !== 'string') fail(`wrong type for value; expected string; got ${typeName(format)}`);
    return sprintf(format, args);
  }),
  json: fn(1, 1, ([a]) => encodeGoJSON(a)),
  eq: fn(1, Infinity, ([a, ...rest]) => eq(a, rest)),
  ne: fn(2, 2, ([a, b]) => !eq(a, [b])),
  lt: fn(2, 2, ([a, b]) => lessThan(a, b)),
  le: fn(2, 2, ([a, b]) => lessThan(a, b) || eq(a, [b])),
  gt: fn(2, 2, ([a, b]) => !(lessThan(a, b) || eq(a, [b]))),
  ge: fn(2, 2, ([a, b]) => !lessThan(a, b)),
});

function length(a: unknown): number {
  if (isNil(a)) fail('len of nil pointer');
  if (typeof a === 'string') return Buffer.byteLength(a, 'utf8'); // Go counts bytes
  if (Array.isArray(a)) return a.length;
  if (isRecord(a)) return ownEntries(a).length;
  return fail(`len of type ${typeName(a)}`);
}

/** An index argument must be an integer; Go reports ranges against the operand's length. */
function toIndex(i: unknown, len: number, allowEnd: boolean): number {
  if (isNil(i)) fail('cannot index slice/array with nil');
  if (typeof i !== 'number' || !Number.isInteger(i)) fail(`cannot index slice/array with type ${typeName(i)}`);
  if (i < 0 || i > len || (i === len && !allowEnd)) fail(`index out of range: ${i}`);
  return i;
}

function indexOne(item: unknown, key: unknown): unknown {
  if (isNil(item)) fail('index of untyped nil');
  if (Array.isArray(item)) return checkValue(item[toIndex(key, item.length, false)], 'element');
  if (typeof item === 'string') {
    const bytes = Buffer.from(item, 'utf8');
    return bytes[toIndex(key, bytes.length, false)]; // a byte, as in Go
  }
  if (isRecord(item)) {
    if (typeof key !== 'string') fail(`value has type ${typeName(key)}; should be string`);
    const v = ownValue(item, key);
    if (v !== missing) return v;
    if (typeof Object.getOwnPropertyDescriptor(item, key)?.value === 'function')
      fail(`key "${key}" has unsupported type func`);
    return undefined; // a missing map key reads as the zero value
  }
  return fail(`can't index item of type ${typeName(item)}`);
}

function slice(item: unknown, idx: unknown[]): unknown {
  if (isNil(item)) fail('slice of untyped nil');
  if (typeof item !== 'string' && !Array.isArray(item)) fail(`can't slice item of type ${typeName(item)}`);
  if (typeof item === 'string' && idx.length > 2) fail('cannot 3-index slice a string');
  const len = typeof item === 'string' ? Buffer.byteLength(item, 'utf8') : item.length;
  const bounds = idx.map((i) => toIndex(i, len, true));
  const [start = 0, end = len] = bounds;
  for (let k = 1; k < bounds.length; k++) {
    if (bounds[k - 1] > bounds[k]) fail(`invalid slice index: ${bounds[k - 1]} > ${bounds[k]}`);
  }
  if (typeof item === 'string') return Buffer.from(item, 'utf8').subarray(start, end).toString('utf8');
  return item.slice(start, end);
}

type Kind = 'nil' | 'bool' | 'number' | 'string' | 'time' | 'composite';

function kind(v: unknown): Kind {
  if (isNil(v)) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  return v instanceof Date ? 'time' : 'composite';
}

/** Go's eq: true if `a` equals any of `others`. nil equals only nil; other mixes are errors. */
function eq(a: unknown, others: unknown[]): boolean {
  if (others.length === 0) fail('missing argument for comparison');
  const ka = kind(a);
  for (const b of others) {
    const kb = kind(b);
    if (ka === 'nil' || kb === 'nil') {
      if (ka === kb) return true;
      continue;
    }
    if (ka !== kb) fail('incompatible types for comparison');
    if (ka === 'composite') fail(`non-comparable type ${typeName(a)}`);
    if (ka === 'time' ? (a as Date).getTime() === (b as Date).getTime() : a === b) return true;
  }
  return false;
}

function lessThan(a: unknown, b: unknown): boolean {
  const ka = kind(a);
  const kb = kind(b);
  const basic = (k: Kind) => k === 'number' || k === 'string' || k === 'bool';
  if (!basic(ka) || !basic(kb)) fail('invalid type for comparison');
  if (ka !== kb) fail('incompatible types for comparison');
  if (ka === 'bool') fail('invalid type for comparison');
  if (ka === 'string') return compareStrings(a as string, b as string) < 0;
  return (a as number) < (b as number);
}
