/**
 * Go values as templates see them: a value carries its Go type, as a reflect.Value does, so the
 * engine can follow Go's text/template and fmt rules to the byte (docs/decisions.md §8). Only the
 * kinds the payload and the template language produce exist here.
 *
 * Payload by kind: bool → boolean; int, int64, uint8 → bigint; float64 → number; complex128 →
 * [re, im]; string → a byte string (one char per byte, 0-255: Go strings are bytes); slice →
 * Value[] or null (nil); map → Map<byte string, Value> or null; ptr → Box or null; struct →
 * Value[] (one per field); interface → Value or null (nil interface).
 */
export type Kind =
  | 'bool'
  | 'int'
  | 'int64'
  | 'uint8'
  | 'float64'
  | 'complex128'
  | 'string'
  | 'slice'
  | 'map'
  | 'ptr'
  | 'struct'
  | 'interface';

export interface StructField {
  name: string;
  type: GoType;
  /** JSON key and omitempty, from the original's json tags; key undefined for an embedded struct. */
  json?: string;
  omitempty?: boolean;
  embedded?: boolean;
}

export interface GoType {
  kind: Kind;
  /** As reflect.Type.String() writes it: `int64`, `*webhook.User`, `[]interface {}`. */
  name: string;
  elem?: GoType;
  key?: GoType;
  fields?: StructField[];
}

/** Where a pointer points; `addr` stands in for the address Go would print. */
export interface Box {
  target: Value;
  addr: bigint;
}

export interface Value {
  t: GoType;
  // The payload's type follows the kind (see the comment at the top), which TypeScript cannot express here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  v: any;
}

/** Go's zero reflect.Value (an invalid value, "<no value>"). */
export type RV = Value | null;

const basic = (kind: Kind, name = kind as string): GoType => Object.freeze({ kind, name });

export const T = {
  bool: basic('bool'),
  int: basic('int'),
  int64: basic('int64'),
  uint8: basic('uint8'),
  float64: basic('float64'),
  complex128: basic('complex128'),
  string: basic('string'),
  any: basic('interface', 'interface {}'),
};

export const named = (kind: Kind, name: string): GoType => ({ kind, name });
export const sliceOf = (elem: GoType): GoType => ({ kind: 'slice', name: `[]${elem.name}`, elem });
export const ptrTo = (elem: GoType): GoType => ({ kind: 'ptr', name: `*${elem.name}`, elem });
export const mapOf = (name: string, key: GoType, elem: GoType): GoType => ({ kind: 'map', name, key, elem });
export const structOf = (name: string, fields: StructField[]): GoType => ({ kind: 'struct', name, fields });

export const val = (t: GoType, v: unknown): Value => ({ t, v });
export const int = (n: bigint | number): Value => val(T.int, BigInt(n));
export const bool = (b: boolean): Value => val(T.bool, b);
export const str = (bytes: string): Value => val(T.string, bytes);

let nextAddr = 0xc000010000n;
/** A pointer to a new variable holding `target`. */
export function ptr(t: GoType, target: Value): Value {
  nextAddr += 0x10n;
  if (nextAddr > 0xc00fffff00n) nextAddr = 0xc000010000n;
  return val(t, { target, addr: nextAddr } satisfies Box);
}

/** A JS string as the bytes of its UTF-8 encoding, one char per byte. */
export const toBytes = (s: string): string =>
  /^[\x00-\x7f]*$/.test(s) ? s : Buffer.from(s, 'utf8').toString('latin1');
export const fromBytes = (b: string): string =>
  /^[\x00-\x7f]*$/.test(b) ? b : Buffer.from(b, 'latin1').toString('utf8');

export const isInteger = (k: Kind): boolean => k === 'int' || k === 'int64' || k === 'uint8';
export const isSignedInt = (k: Kind): boolean => k === 'int' || k === 'int64';

/** reflect.Value.IsNil for the kinds that can be nil. */
export const isNilValue = (x: Value): boolean =>
  (x.t.kind === 'ptr' || x.t.kind === 'interface' || x.t.kind === 'slice' || x.t.kind === 'map') && x.v === null;

export const canBeNil = (t: GoType): boolean =>
  t.kind === 'ptr' || t.kind === 'interface' || t.kind === 'slice' || t.kind === 'map';

/** reflect.Zero. */
export function zero(t: GoType): Value {
  switch (t.kind) {
    case 'bool':
      return val(t, false);
    case 'int':
    case 'int64':
    case 'uint8':
      return val(t, 0n);
    case 'float64':
      return val(t, 0);
    case 'complex128':
      return val(t, [0, 0]);
    case 'string':
      return val(t, '');
    case 'struct':
      return val(
        t,
        t.fields!.map((f) => zero(f.type)),
      );
    default:
      return val(t, null);
  }
}

/** text/template's indirect: through pointers and interfaces to the first nil or non-pointer. */
export function indirect(v: Value): [Value, boolean] {
  while (v.t.kind === 'ptr' || v.t.kind === 'interface') {
    if (v.v === null) return [v, true];
    v = v.t.kind === 'ptr' ? (v.v as Box).target : (v.v as Value);
  }
  return [v, false];
}

/** text/template's indirectInterface: the value inside an interface (invalid when nil). */
export function indirectInterface(v: RV): RV {
  if (v === null || v.t.kind !== 'interface') return v;
  return v.v as Value | null;
}

/** The length of a string, slice or map. */
export function lengthOf(v: Value): number {
  if (v.t.kind === 'string') return (v.v as string).length;
  if (v.v === null) return 0;
  return v.t.kind === 'map' ? (v.v as Map<string, Value>).size : (v.v as { len: number }).len;
}

/** text/template's isTrue; null when the value has no truth (never, for the kinds here). */
export function isTrue(v: RV): boolean {
  if (v === null) return false;
  switch (v.t.kind) {
    case 'string':
    case 'slice':
    case 'map':
      return lengthOf(v) > 0;
    case 'bool':
      return v.v as boolean;
    case 'complex128':
      return (v.v as number[])[0] !== 0 || (v.v as number[])[1] !== 0;
    case 'ptr':
    case 'interface':
      return v.v !== null;
    case 'int':
    case 'int64':
    case 'uint8':
      return v.v !== 0n;
    case 'float64':
      return v.v !== 0;
    case 'struct':
      return true;
  }
}

/** reflect.Type.Comparable. */
export function comparable(t: GoType): boolean {
  if (t.kind === 'slice' || t.kind === 'map') return false;
  if (t.kind === 'struct') return t.fields!.every((f) => comparable(f.type));
  return true;
}

/** reflect.Type.FieldByName: a direct field, else one promoted from an embedded struct. */
export function fieldByName(t: GoType, name: string): number[] | null {
  const fields = t.fields ?? [];
  const direct = fields.findIndex((f) => f.name === name);
  if (direct >= 0) return [direct];
  for (let i = 0; i < fields.length; i++) {
    if (!fields[i].embedded) continue;
    const inner = fieldByName(fields[i].type, name);
    if (inner) return [i, ...inner];
  }
  return null;
}

export function fieldByIndex(v: Value, index: number[]): Value {
  for (const i of index) v = (v.v as Value[])[i];
  return v;
}

/** text/template's printableValue, as the `any` handed to fmt: pointers followed, nothing is "<no value>". */
export function printable(v: RV): RV {
  if (v === null) return str('<no value>');
  if (v.t.kind === 'ptr') v = indirect(v)[0];
  return v.t.kind === 'interface' ? (v.v as Value | null) : v;
}
