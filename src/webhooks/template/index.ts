/**
 * A sandboxed interpreter for Go's text/template language, used to render user-supplied webhook
 * bodies. Templates see only the data they are given (own enumerable properties, no functions),
 * and every render is bounded in time, memory and output by TEMPLATE_LIMITS.
 *
 * Not supported: {{define}}, {{template}}, {{block}}, and the call, html, js and urlquery functions.
 */
import type { Node } from './ast.ts';
import { TEMPLATE_LIMITS, TemplateError } from './errors.ts';
import { execute } from './evaluate.ts';
import { parse } from './parser.ts';

export { TEMPLATE_LIMITS, TemplateError } from './errors.ts';
export { encodeGoJSON } from './go-json.ts';
export { lenientKeys, toGoJSON } from './values.ts';

export interface CompiledTemplate {
  /** Throws TemplateError, positioned at the failing action, on any runtime error or limit. */
  render(data: unknown): string;
}

/** Parses a template; throws TemplateError (with line and column) if it is invalid. */
export function compileTemplate(source: string): CompiledTemplate {
  if (Buffer.byteLength(source, 'utf8') > TEMPLATE_LIMITS.maxSourceBytes) {
    throw new TemplateError(`template larger than ${TEMPLATE_LIMITS.maxSourceBytes} bytes`, 1, 1);
  }
  const root: Node[] = parse(source);
  return { render: (data: unknown) => execute(source, root, data) };
}
