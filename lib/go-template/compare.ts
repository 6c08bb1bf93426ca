/**
 * eq and lt as Go's text/template funcs.go (Go 1.19) define them: basic kinds compare by value
 * (signed and unsigned integers with each other), other values only when Go's == would accept
 * them (pointers by identity, structs field by field), and everything else is an error.
 */
import { fail } from './errors.ts';
import { comparable, indirectInterface, type Box, type RV, type Value } from './types.ts';

type BasicKind = 'invalid' | 'bool' | 'complex' | 'int' | 'float' | 'string' | 'uint';

function basicKind(v: RV): BasicKind {
  switch (v?.t.kind) {
    case 'bool':
      return 'bool';
    case 'int':
    case 'int64':
      return 'int';
    case 'uint8':
      return 'uint';
    case 'float64':
      return 'float';
    case 'complex128':
      return 'complex';
    case 'string':
      return 'string';
  }
  return 'invalid';
}

const isNil = (v: RV): boolean =>
  v === null || (['interface', 'map', 'ptr', 'slice'].includes(v.t.kind) && v.v === null);

/** Go's == on two values of one comparable type; panics (fails) on an uncomparable dynamic type. */
function goEqual(a: Value, b: Value): boolean {
  switch (a.t.kind) {
    case 'ptr':
      return a.v === b.v || (a.v !== null && b.v !== null && (a.v as Box).target === (b.v as Box).target);
    case 'struct':
      return (a.v as Value[]).every((f, i) => goEqual(f, (b.v as Value[])[i]));
    case 'interface': {
      const [x, y] = [a.v as Value | null, b.v as Value | null];
      if (x === null || y === null) return x === y;
      if (x.t.name !== y.t.name) return false;
      if (!comparable(x.t)) fail(`runtime error: comparing uncomparable type ${x.t.name}`);
      return goEqual(x, y);
    }
    case 'complex128':
      return a.v[0] === b.v[0] && a.v[1] === b.v[1];
    default:
      return a.v === b.v;
  }
}

export function equal(arg1: RV, others: RV[]): boolean {
  arg1 = indirectInterface(arg1);
  if (others.length === 0) fail('missing argument for comparison');
  const k1 = basicKind(arg1);
  for (let arg of others) {
    arg = indirectInterface(arg);
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) {
        truth = arg1!.v === arg!.v;
      } else if (arg1 !== null && arg !== null) fail('incompatible types for comparison');
    } else if (k1 === 'complex') {
      truth = arg1!.v[0] === arg!.v[0] && arg1!.v[1] === arg!.v[1];
    } else if (k1 !== 'invalid') {
      truth = arg1!.v === arg!.v;
    } else {
      if (arg1 !== null && arg !== null && arg1.t.kind !== arg.t.kind) {
        fail(`non-comparable types ${arg1.t.name}, ${arg.t.name}`);
      }
      if (isNil(arg1) || isNil(arg)) truth = isNil(arg) === isNil(arg1);
      else {
        if (!comparable(arg!.t)) fail(`non-comparable type ${arg!.t.name}`);
        // Interface() == Interface(): different dynamic types are simply unequal.
        truth = arg1!.t.name === arg!.t.name && goEqual(arg1!, arg!);
      }
    }
    if (truth) return true;
  }
  return false;
}

export function lessThan(arg1: RV, arg2: RV): boolean {
  arg1 = indirectInterface(arg1);
  const k1 = basicKind(arg1);
  if (k1 === 'invalid') fail('invalid type for comparison');
  arg2 = indirectInterface(arg2);
  const k2 = basicKind(arg2);
  if (k2 === 'invalid') fail('invalid type for comparison');
  const [a, b] = [arg1!.v, arg2!.v];
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return a < b;
    return fail('incompatible types for comparison');
  }
  if (k1 === 'bool' || k1 === 'complex') fail('invalid type for comparison');
  return a < b;
}
