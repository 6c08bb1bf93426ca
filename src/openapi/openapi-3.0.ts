/**
 * The OpenAPI 3.0 rendering of the 3.1 document (GET /openapi-3.0.json), for tools that do not
 * take 3.1 as it is. openapi-generator 7.17 (typescript-fetch) is one: it turns the 3.1 `webhooks`
 * entry into a client method whose imports it leaves empty, and `{"type": "null"}` into a model
 * `Null` it never writes, so its client does not compile. 3.0 has no webhooks: the entry moves to
 * the `x-webhooks` extension, and JSON Schema 2020-12 forms become their 3.0 spellings.
 *
 * A pure function of the 3.1 document, not a second generator run: zod-to-openapi's 3.0 generator
 * writes `{nullable: true}` without a type, which 3.0 linters reject.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);
const isNullOnly = (v: Json): boolean =>
  isObject(v) && v.type === 'null' && Object.keys(v).every((k) => k === 'type' || k === 'description');

/** One JSON Schema (2020-12, as the 3.1 document writes it) in OpenAPI 3.0's dialect. */
function schema30(node: Json, components: JsonObject): Json {
  if (Array.isArray(node)) return node.map((n) => schema30(n, components));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // Keywords whose value is a map of names to schemas, or one schema, or a list of schemas.
    if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schema30(v, components)]));
    else if (['items', 'additionalProperties', 'not'].includes(key) && isObject(value))
      out[key] = schema30(value, components);
    else if (['anyOf', 'oneOf', 'allOf'].includes(key) && Array.isArray(value))
      out[key] = value.map((v) => schema30(v, components));
    else out[key] = value;
  }

  // type: [T, 'null'] → type: T, nullable; type: 'null' alone → a nullable type admitting only null.
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== 'null');
    if (types.length < out.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      out.anyOf = types.map((t) => ({ type: t }));
    }
  }
  if (out.type === 'null') Object.assign(out, { type: 'string', nullable: true, enum: [null] });

  // anyOf/oneOf with a null member → the other members, nullable. A lone $ref cannot carry
  // `nullable` beside it (3.0 ignores $ref siblings), so it is wrapped in allOf.
  for (const key of ['anyOf', 'oneOf'] as const) {
    const original = node[key];
    const alts = out[key];
    if (!Array.isArray(original) || !Array.isArray(alts) || !original.some(isNullOnly)) continue;
    const rest = alts.filter((_, i) => !isNullOnly(original[i]));
    delete out[key];
    out.nullable = true;
    if (rest.length === 1 && isObject(rest[0]) && typeof rest[0].$ref === 'string') {
      const target = components[rest[0].$ref.replace('#/components/schemas/', '')];
      out.allOf = [rest[0]];
      if (isObject(target) && typeof target.type === 'string') out.type = target.type;
    } else if (rest.length === 1 && isObject(rest[0])) Object.assign(out, rest[0], { nullable: true });
    else out[key] = rest;
  }

  if ('const' in out) {
    out.enum = [out.const];
    delete out.const;
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] === 'number') {
      out[bound] = out[exclusive];
      out[exclusive] = true;
    }
  }
  if ('contentMediaType' in out) {
    delete out.contentMediaType;
    out.format = 'binary';
  }
  if (Array.isArray(out.examples)) {
    if (out.examples.length > 0 && !('example' in out)) out.example = out.examples[0];
    delete out.examples;
  }
  return out;
}

/** Every place a 3.0 document holds a schema: components, parameters, bodies, responses, headers. */
function walk(node: Json, components: JsonObject): Json {
  if (Array.isArray(node)) return node.map((n) => walk(n, components));
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'schema' ? schema30(value, components) : walk(value, components),
    ]),
  );
}

export function toOpenApi30<T extends object>(doc: T): JsonObject {
  const { openapi: _version, webhooks, info, components, paths, ...rest } = doc as unknown as JsonObject;
  const schemas = isObject(components) && isObject(components.schemas) ? components.schemas : {};
  // 3.0's License has a url where 3.1's may have an SPDX identifier instead.
  const { identifier, ...license } = isObject(info) && isObject(info.license) ? info.license : {};
  if (typeof identifier === 'string' && !license.url) license.url = `https://spdx.org/licenses/${identifier}.html`;
  return {
    openapi: '3.0.3',
    info: { ...(info as JsonObject), ...(isObject(info) && info.license ? { license } : {}) },
    ...rest,
    paths: walk(paths ?? {}, schemas),
    components: {
      ...(components as JsonObject),
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, schema30(s, schemas)])),
    },
    ...(webhooks ? { 'x-webhooks': walk(webhooks, schemas) } : {}),
  };
}
