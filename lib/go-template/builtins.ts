/**
 * The functions templates may call: Go's text/template builtins (funcs.go, Go 1.19) with their Go
 * signatures, plus the original service's `json` (json.Marshal). A parameter is a reflect.Value
 * ('value', any Value), an interface {} ('any', a Value or null for nil) or a string ('string',
 * a byte string); the evaluator checks arguments against these as Go does. `and`/`or` are
 * evaluated lazily by the evaluator itself.
 */
import { sliceCap, sliceIndex, reslice } from './collections.ts';
import { escapeHTML, escapeJS, queryEscape } from './escapers.ts';
import { fail } from './errors.ts';
import { sprint, sprintf, sprintln } from './fmt.ts';
import { marshal } from './go-json.ts';
import { equal, lessThan } from './compare.ts';
import {
  T,
  bool,
  indirect,
  indirectInterface,
  int,
  isInteger,
  isTrue,
  lengthOf,
  printable,
  str,
  val,
  zero,
  type RV,
  type Value,
} from './types.ts';

export type ParamType = 'value' | 'any' | 'string';

export interface TemplateFunction {
  params: ParamType[];
  /** The last parameter is variadic (...T). */
  variadic: boolean;
  call(args: (RV | string)[]): RV;
}

/** The evaluator has checked the arguments against `params`, so each function may name their types. */
const fn = <A extends (RV | string)[]>(
  params: ParamType[],
  variadic: boolean,
  call: (args: A) => RV,
): TemplateFunction => ({
  params,
  variadic,
  call: call as (args: (RV | string)[]) => RV,
});
const lazy = (): RV => fail('internal error: and/or are evaluated by the evaluator');
const toStr = (s: string): Value => str(s);

export const FUNCTIONS: Readonly<Record<string, TemplateFunction>> = Object.freeze({
  and: fn(['value', 'value'], true, lazy),
  or: fn(['value', 'value'], true, lazy),
  call: fn(['value', 'value'], true, ([f]: RV[]) => callFunction(f)),
  html: fn(['any'], true, (args: RV[]) => toStr(escapeHTML(evalArgs(args)))),
  index: fn(['value', 'value'], true, ([item, ...keys]: RV[]) => index(item, keys)),
  slice: fn(['value', 'value'], true, ([item, ...idx]: RV[]) => slice(item, idx)),
  js: fn(['any'], true, (args: RV[]) => toStr(escapeJS(evalArgs(args)))),
  len: fn(['value'], false, ([item]: RV[]) => length(item)),
  not: fn(['value'], false, ([a]: RV[]) => bool(!isTrue(indirectInterface(a)))),
  print: fn(['any'], true, (args: RV[]) => toStr(sprint(args))),
  printf: fn(['string', 'any'], true, ([format, ...args]: [string, ...RV[]]) => toStr(sprintf(format, args))),
  println: fn(['any'], true, (args: RV[]) => toStr(sprintln(args))),
  urlquery: fn(['any'], true, (args: RV[]) => toStr(queryEscape(evalArgs(args)))),
  eq: fn(['value', 'value'], true, ([a, ...rest]: RV[]) => bool(equal(a, rest))),
  ne: fn(['value', 'value'], false, ([a, b]: RV[]) => bool(!equal(a, [b]))),
  lt: fn(['value', 'value'], false, ([a, b]: RV[]) => bool(lessThan(a, b))),
  le: fn(['value', 'value'], false, ([a, b]: RV[]) => bool(lessThan(a, b) || equal(a, [b]))),
  gt: fn(['value', 'value'], false, ([a, b]: RV[]) => bool(!(lessThan(a, b) || equal(a, [b])))),
  ge: fn(['value', 'value'], false, ([a, b]: RV[]) => bool(!lessThan(a, b))),
  json: fn(['any'], false, ([a]: RV[]) => toStr(marshal(a))),
});

/** funcs.go's evalArgs: one string as is, else fmt.Sprint of the printable values. */
function evalArgs(args: RV[]): string {
  if (args.length === 1 && args[0] !== null && args[0].t === T.string) return args[0].v as string;
  return sprint(args.map((a) => (a === null ? str('<no value>') : printable(a))));
}

/** The data holds no functions, so `call` always fails, after evaluating its arguments as Go does. */
function callFunction(f: RV): RV {
  const fnv = indirectInterface(f);
  if (fnv === null) return fail('call of nil');
  return fail(`non-function of type ${fnv.t.name}`);
}

function indexArg(index: RV, cap: number): number {
  if (index === null) fail('cannot index slice/array with nil');
  if (!isInteger(index.t.kind)) fail(`cannot index slice/array with type ${index.t.name}`);
  const x = index.v as bigint;
  if (x < 0n || x > BigInt(cap)) fail(`index out of range: ${x}`);
  return Number(x);
}

function index(item0: RV, keys: RV[]): RV {
  let item = indirectInterface(item0);
  if (item === null) return fail('index of untyped nil');
  for (const key0 of keys) {
    const key = indirectInterface(key0);
    const [it, isNil] = indirect(item!);
    if (isNil) fail('index of nil pointer');
    item = it;
    if (it.t.kind === 'slice' || it.t.kind === 'string') {
      const len = lengthOf(it);
      const x = indexArg(key, len);
      // reflect panics at the length itself; safeCall turns that into an error.
      if (x === len) fail(`reflect: ${it.t.kind} index out of range`);
      item = it.t.kind === 'string' ? val(T.uint8, BigInt((it.v as string).charCodeAt(x))) : sliceIndex(it, x);
    } else if (it.t.kind === 'map') {
      const k = prepareKey(key, it.t.key!.name);
      item = (it.v as Map<string, Value> | null)?.get(k) ?? zero(it.t.elem!);
    } else fail(`can't index item of type ${it.t.name}`);
  }
  return item;
}

/** prepareArg for a map key (the data's maps have string keys, which cannot be nil). */
function prepareKey(key: RV, keyType: string): string {
  if (key === null) return fail(`value is nil; should be of type ${keyType}`);
  if (key.t.name === keyType) return key.v as string;
  return fail(`value has type ${key.t.name}; should be ${keyType}`);
}

function slice(item0: RV, idx: RV[]): RV {
  const item = indirectInterface(item0);
  if (item === null) return fail('slice of untyped nil');
  if (idx.length > 3) fail(`too many slice indexes: ${idx.length}`);
  let cap: number;
  if (item.t.kind === 'string') {
    if (idx.length === 3) fail('cannot 3-index slice a string');
    cap = lengthOf(item);
  } else if (item.t.kind === 'slice') cap = sliceCap(item);
  else return fail(`can't slice item of type ${item.t.name}`);
  const bounds = [0, lengthOf(item)];
  idx.forEach((i, k) => (bounds[k] = indexArg(i, cap)));
  if (bounds[0] > bounds[1]) fail(`invalid slice index: ${bounds[0]} > ${bounds[1]}`);
  if (idx.length === 3 && bounds[1] > bounds[2]) fail(`invalid slice index: ${bounds[1]} > ${bounds[2]}`);
  if (item.t.kind === 'string') return val(item.t, (item.v as string).slice(bounds[0], bounds[1]));
  return reslice(item, bounds[0], bounds[1], idx.length === 3 ? bounds[2] : undefined);
}

function length(item0: RV): RV {
  if (item0 === null) return fail('len of untyped nil');
  const [item, isNil] = indirect(item0);
  if (isNil) fail('len of nil pointer');
  if (item.t.kind === 'string' || item.t.kind === 'slice' || item.t.kind === 'map') return int(lengthOf(item));
  return fail(`len of type ${item.t.name}`);
}
