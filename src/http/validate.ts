import { z } from 'zod';
import { AppError, type ValidationIssue } from '../errors.ts';

function describe(issue: z.ZodIssue): Pick<ValidationIssue, 'expected' | 'received'> {
  switch (issue.code) {
    case 'invalid_type':
      return { expected: String(issue.expected), received: String(issue.received) };
    case 'invalid_enum_value':
      return { expected: issue.options.map(String).join(' | '), received: String(issue.received) };
    case 'invalid_literal':
      return { expected: String(issue.expected), received: String(issue.received) };
    case 'too_small':
      return { expected: `${issue.type} >= ${issue.minimum}`, received: issue.type };
    case 'too_big':
      return { expected: `${issue.type} <= ${issue.maximum}`, received: issue.type };
    case 'unrecognized_keys':
      return { expected: 'no other keys', received: issue.keys.join(', ') };
    default:
      return { expected: '', received: '' };
  }
}

/** zod issues in the spec's classic shape, paths shifted by `offset` elements (for relative paths). */
export function toIssues(error: z.ZodError, offset = 0): ValidationIssue[] {
  return error.issues.map((issue) => ({
    code: issue.code,
    ...describe(issue),
    path: issue.path.slice(offset),
    message: issue.message,
  }));
}

/** Parses input with the schema or throws the 400 validation error. */
export function parse<S extends z.ZodTypeAny>(schema: S, input: unknown, pathOffset = 0): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new AppError('validation', 'request does not match the schema', toIssues(result.error, pathOffset));
  return result.data;
}

export interface QueryIntRange {
  min: number;
  max: number;
  default: number;
}

/** Each queryInt schema's range, so the OpenAPI document states it from the same numbers. */
const ranges = new WeakMap<z.ZodTypeAny, QueryIntRange>();

/** Query-string integers: absent → default; present → must be a plain integer within range. */
export const queryInt = (opts: { min: number; default: number; max?: number }) => {
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const schema = z
    .string()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number)
    .pipe(z.number().int().min(opts.min).max(max))
    .optional()
    .transform((v) => v ?? opts.default);
  ranges.set(schema, { min: opts.min, max, default: opts.default });
  return schema;
};

/** The range of a queryInt schema, also through transforms/optional wrapped around it; else undefined. */
export function queryIntRange(schema: z.ZodTypeAny): QueryIntRange | undefined {
  for (let s: z.ZodTypeAny | undefined = schema; s; ) {
    const found = ranges.get(s);
    if (found) return found;
    s =
      s instanceof z.ZodEffects
        ? s.innerType()
        : s instanceof z.ZodOptional || s instanceof z.ZodDefault
          ? s._def.innerType
          : undefined;
  }
  return undefined;
}
