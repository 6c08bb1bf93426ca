/**
 * A small JSON Schema (2020-12 subset) validator: exactly the keywords the generated OpenAPI
 * document uses. Checking responses against the *document* (not only the zod schemas behind it)
 * catches generator mistakes, e.g. a nullable $ref that lost its null. Any keyword outside the
 * subset is reported by `unknownKeywords`, so a schema can never be half-checked silently.
 */

export type Schema = Record<string, unknown>;

/** Keywords that constrain values, and the ones that only annotate. */
const CHECKED = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'anyOf',
  'oneOf',
  'allOf',
  'format',
]);
const ANNOTATIONS = new Set([
  'description',
  'example',
  'examples',
  'default',
  'title',
  'contentMediaType',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

const FORMATS: Record<string, (s: string) => boolean> = {
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  'date-time': (s) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  uri: (s) => URL.canParse(s),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  binary: () => true,
};

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const typeMatches = (v: unknown, t: string) => typeOf(v) === t || (t === 'number' && typeOf(v) === 'integer');

export class JsonSchemaValidator {
  constructor(private readonly components: Record<string, Schema> = {}) {}

  private resolve(ref: string): Schema {
    const m = /^#\/components\/schemas\/(.+)$/.exec(ref);
    const target = m ? this.components[m[1]] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    return target;
  }

  /** Problems found, each as "<json path>: <what>"; empty when the value is valid. */
  validate(schema: Schema, value: unknown, at = '$'): string[] {
    const errors: string[] = [];
    const fail = (msg: string) => errors.push(`${at}: ${msg}`);
    if (typeof schema.$ref === 'string') errors.push(...this.validate(this.resolve(schema.$ref), value, at));

    if (schema.type !== undefined) {
      const types = ([] as string[]).concat(schema.type as string | string[]);
      if (!types.some((t) => typeMatches(value, t))) {
        fail(`expected ${types.join(' or ')}, got ${typeOf(value)}`);
        return errors; // further checks would only repeat the mismatch
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value))
      fail(`expected one of ${JSON.stringify(schema.enum)}, got ${JSON.stringify(value)}`);
    if ('const' in schema && schema.const !== value) fail(`expected ${JSON.stringify(schema.const)}`);

    if (typeof value === 'string') {
      if (typeof schema.minLength === 'number' && value.length < schema.minLength)
        fail(`shorter than ${schema.minLength}`);
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
        fail(`longer than ${schema.maxLength}`);
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
        fail(`does not match /${schema.pattern}/`);
      if (typeof schema.format === 'string') {
        const check = FORMATS[schema.format];
        if (!check) fail(`unknown format ${schema.format}`);
        else if (!check(value)) fail(`not a valid ${schema.format}: ${JSON.stringify(value).slice(0, 80)}`);
      }
    }
    if (typeof value === 'number') {
      if (typeof schema.minimum === 'number' && value < schema.minimum) fail(`below ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && value > schema.maximum) fail(`above ${schema.maximum}`);
      if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
        fail(`not above ${schema.exclusiveMinimum}`);
      if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
        fail(`not below ${schema.exclusiveMaximum}`);
    }
    if (Array.isArray(value)) {
      if (typeof schema.minItems === 'number' && value.length < schema.minItems)
        fail(`fewer than ${schema.minItems} items`);
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
        fail(`more than ${schema.maxItems} items`);
      if (schema.items && typeof schema.items === 'object')
        value.forEach((v, i) => errors.push(...this.validate(schema.items as Schema, v, `${at}[${i}]`)));
    }
    if (typeOf(value) === 'object') {
      const obj = value as Record<string, unknown>;
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const key of (schema.required as string[] | undefined) ?? [])
        if (!(key in obj)) fail(`missing required property ${key}`);
      for (const [key, v] of Object.entries(obj)) {
        if (props[key]) errors.push(...this.validate(props[key], v, `${at}.${key}`));
        else if (schema.additionalProperties === false) fail(`unexpected property ${key}`);
        else if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
          errors.push(...this.validate(schema.additionalProperties as Schema, v, `${at}.${key}`));
      }
    }
    if (Array.isArray(schema.allOf))
      for (const s of schema.allOf as Schema[]) errors.push(...this.validate(s, value, at));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const alternatives = schema[key] as Schema[] | undefined;
      if (!Array.isArray(alternatives)) continue;
      const passing = alternatives.filter((s) => this.validate(s, value, at).length === 0).length;
      // oneOf with identical alternatives (the generator repeats {type: null}) still means "one of them".
      if (passing === 0) fail(`matches none of the ${key} alternatives`);
    }
    return errors;
  }

  /** Keywords anywhere in the schemas that this validator would not check. */
  static unknownKeywords(node: unknown, at = '$', found: string[] = []): string[] {
    if (Array.isArray(node)) node.forEach((n, i) => JsonSchemaValidator.unknownKeywords(n, `${at}[${i}]`, found));
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (!CHECKED.has(key) && !ANNOTATIONS.has(key)) found.push(`${at}.${key}`);
        if (key === 'properties')
          for (const [p, s] of Object.entries(value as object))
            JsonSchemaValidator.unknownKeywords(s, `${at}.properties.${p}`, found);
        else if (!ANNOTATIONS.has(key) && key !== 'enum' && key !== 'const' && key !== 'required')
          JsonSchemaValidator.unknownKeywords(value, `${at}.${key}`, found);
      }
    }
    return found;
  }
}
