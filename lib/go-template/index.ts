/**
 * A sandboxed interpreter for Go's text/template language (Go 1.19), a library of its own (README.md
 * beside this file); the webhooks render user-supplied bodies with it exactly as the original service
 * rendered them (docs/decisions.md §8). Templates see only the typed data they are given (Go values
 * built with the constructors below), and every render is bounded in time, memory and output by
 * TEMPLATE_LIMITS. Users import this entry point only.
 */
import { TEMPLATE_LIMITS, TemplateError } from './errors.ts';
import { execute } from './exec.ts';
import { parse } from './parser.ts';
import type { Value } from './types.ts';

export { TEMPLATE_LIMITS, TemplateError } from './errors.ts';
export { marshal as marshalJSON } from './go-json.ts';
export { appendedCap, decodedCap, makeMap, makeSlice } from './collections.ts';
export {
  T,
  fromBytes,
  mapOf,
  named,
  ptr,
  ptrTo,
  sliceOf,
  structOf,
  toBytes,
  val,
  type GoType,
  type Value,
} from './types.ts';

export interface CompiledTemplate {
  /**
   * The rendered bytes, one char per byte (a byte string; Go's output need not be UTF-8). Throws
   * TemplateError, positioned at the failing action, on any runtime error or limit.
   */
  render(data: Value): string;
}

/** Parses a template; throws TemplateError (with line and column) if it is invalid. */
export function compileTemplate(source: string): CompiledTemplate {
  if (Buffer.byteLength(source, 'utf8') > TEMPLATE_LIMITS.maxSourceBytes) {
    throw new TemplateError(`template larger than ${TEMPLATE_LIMITS.maxSourceBytes} bytes`, 1, 1);
  }
  const set = parse(source);
  return { render: (data: Value) => execute(source, set, data) };
}
