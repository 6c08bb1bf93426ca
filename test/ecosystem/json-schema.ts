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

/** Each schema pattern compiled once. */
const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source, 'u')));
  return re;
}

export class JsonSchemaValidator {
  constructor(private readonly components: Record<string, Schema> = {}) {}

  private readonly resolved = new Map<string, Schema>();

  private resolve(ref: string): Schema {
    let target = this.resolved.get(ref);
    if (target) return target;
    const m = /^#\/components\/schemas\/(.+)$/.exec(ref);
    target = m ? this.components[m[1]] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    this.resolved.set(ref, target);
    return target;
  }

  /** Problems found, each as "<json path>: <what>"; empty when the value is valid. */
  validate(schema: Schema, value: unknown, at = '$'): string[] {
    const errors: string[] = [];
    this.check(schema, value, at, errors);
    return errors;
  }

  /**
   * validate() into one list for the whole walk: `npm test` checks some twenty thousand recorded
   * responses with it, so no list, closure or spread per node.
   */
  private check(schema: Schema, value: unknown, at: string, errors: string[]): void {
    if (typeof schema.$ref === 'string') this.check(this.resolve(schema.$ref), value, at, errors);

    if (schema.type !== undefined) {
      const types = schema.type as string | string[];
      if (typeof types === 'string' ? !typeMatches(value, types) : !types.some((t) => typeMatches(value, t))) {
        errors.push(`${at}: expected ${([] as string[]).concat(types).join(' or ')}, got ${typeOf(value)}`);
        return; // further checks would only repeat the mismatch
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(value))
      errors.push(`${at}: expected one of ${JSON.stringify(schema.enum)}, got ${JSON.stringify(value)}`);
    if ('const' in schema && schema.const !== value) errors.push(`${at}: expected ${JSON.stringify(schema.const)}`);

    if (typeof value === 'string') {
      if (typeof schema.minLength === 'number' && value.length < schema.minLength)
        errors.push(`${at}: shorter than ${schema.minLength}`);
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
        errors.push(`${at}: longer than ${schema.maxLength}`);
      if (typeof schema.pattern === 'string' && !patternOf(schema.pattern).test(value))
        errors.push(`${at}: does not match /${schema.pattern}/`);
      if (typeof schema.format === 'string') {
        const check = FORMATS[schema.format];
        if (!check) errors.push(`${at}: unknown format ${schema.format}`);
        else if (!check(value))
          errors.push(`${at}: not a valid ${schema.format}: ${JSON.stringify(value).slice(0, 80)}`);
      }
    }
    if (typeof value === 'number') {
      if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${at}: above ${schema.maximum}`);
      if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
        errors.push(`${at}: not above ${schema.exclusiveMinimum}`);
      if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
        errors.push(`${at}: not below ${schema.exclusiveMaximum}`);
    }
    if (Array.isArray(value)) {
      if (typeof schema.minItems === 'number' && value.length < schema.minItems)
        errors.push(`${at}: fewer than ${schema.minItems} items`);
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
        errors.push(`${at}: more than ${schema.maxItems} items`);
      if (schema.items && typeof schema.items === 'object')
        for (let i = 0; i < value.length; i++) this.check(schema.items as Schema, value[i], `${at}[${i}]`, errors);
    }
    if (typeOf(value) === 'object') {
      const obj = value as Record<string, unknown>;
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const key of (schema.required as string[] | undefined) ?? [])
        if (!(key in obj)) errors.push(`${at}: missing required property ${key}`);
      const extra = schema.additionalProperties;
      for (const key of Object.keys(obj)) {
        if (props[key]) this.check(props[key], obj[key], `${at}.${key}`, errors);
        else if (extra === false) errors.push(`${at}: unexpected property ${key}`);
        else if (extra && typeof extra === 'object') this.check(extra as Schema, obj[key], `${at}.${key}`, errors);
      }
    }
    if (Array.isArray(schema.allOf)) for (const s of schema.allOf as Schema[]) this.check(s, value, at, errors);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const alternatives = schema[key] as Schema[] | undefined;
      if (!Array.isArray(alternatives)) continue;
      // oneOf with identical alternatives (the generator repeats {type: null}) still means "one of them".
      if (!alternatives.some((s) => this.validate(s, value, at).length === 0))
        errors.push(`${at}: matches none of the ${key} alternatives`);
    }
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
