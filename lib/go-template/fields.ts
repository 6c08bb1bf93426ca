/**
 * `.Name` on a value, as exec.go's evalField: a struct's field (promoted through an embedded
 * struct), a map's entry (a missing key is no value, as Go's default "missingkey" option has it),
 * through pointers and interfaces; anything else fails as Go fails. The sandbox boundary: only
 * the fields of the payload's Go types are reachable, and the data has no methods.
 */
import { fail } from './errors.ts';
import { fieldByIndex, fieldByName, indirect, toBytes, type RV, type Value } from './types.ts';

export function evalField(name: string, hasArgs: boolean, receiver: RV): RV {
  if (receiver === null) return null;
  const typ = receiver.t;
  const [r, isNil] = indirect(receiver);
  if (r.t.kind === 'interface' && isNil) fail(`nil pointer evaluating ${typ.name}.${name}`);
  switch (r.t.kind) {
    case 'struct': {
      const index = fieldByName(r.t, name);
      if (index) {
        if (hasArgs) fail(`${name} has arguments but cannot be invoked as function`);
        return fieldByIndex(r, index);
      }
      break;
    }
    case 'map':
      if (r.t.key!.name === 'string') {
        if (hasArgs) fail(`${name} is not a method but has arguments`);
        return r.v === null ? null : ((r.v as Map<string, Value>).get(toBytes(name)) ?? null);
      }
      break;
    case 'ptr': {
      const elem = r.t.elem!;
      if (elem.kind === 'struct' && !fieldByName(elem, name)) break;
      if (isNil) fail(`nil pointer evaluating ${typ.name}.${name}`);
      break;
    }
  }
  return fail(`can't evaluate field ${name} in type ${typ.name}`);
}
