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
  if (!result.success) throw new AppError('validation', 'request does not match the schema', toIssues(result.error, pathOffset));
  return result.data;
}

/** Query-string integers: absent → default; present → must be a plain integer within range. */
export const queryInt = (opts: { min: number; default: number; max?: number }) =>
  z
    .string()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number)
    .pipe(z.number().int().min(opts.min).max(opts.max ?? Number.MAX_SAFE_INTEGER))
    .optional()
    .transform((v) => v ?? opts.default);
