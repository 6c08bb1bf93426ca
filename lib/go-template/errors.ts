/**
 * Limits and errors shared by every stage of the template engine. Templates are user-supplied and
 * run on the server, so every resource a template can make us spend has a ceiling here.
 */
export const TEMPLATE_LIMITS = Object.freeze({
  maxSourceBytes: 65536,
  maxOutputBytes: 262144,
  /** Summed over every {{range}} of one render, so nesting cannot multiply past it. */
  maxRangeIterations: 100_000,
  /** Nesting of {{if}}/{{with}}/{{range}}/parentheses, and of data values printed or encoded. */
  maxDepth: 100,
  /** Evaluation work units per render; long strings handled by functions cost extra. */
  maxSteps: 1_000_000,
} as const);

export class TemplateError extends Error {
  constructor(
    /** The message without the position prefix. */
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`template: line ${line}, column ${column}: ${reason}`);
    this.name = 'TemplateError';
  }
}

/**
 * A runtime failure that does not know where it happened; the evaluator knows which node it was
 * working on and turns it into a TemplateError.
 */
export class Failure extends Error {}

export function fail(message: string): never {
  throw new Failure(message);
}

/**
 * Work done by the render in progress. Module-level because value formatting and JSON encoding
 * loop over data deep inside function calls and must pay for each element they visit; renders
 * are synchronous, so one is active at a time (withMeter saves and restores around each).
 */
class Meter {
  private steps = 0;

  constructor(private readonly limit: number) {}

  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.limit) fail(`template exceeded ${this.limit} evaluation steps`);
  }
}

/** Outside a render (e.g. marshalJSON called directly) nothing is limited. */
export let meter = new Meter(Infinity);

export function withMeter<T>(fn: () => T): T {
  const saved = meter;
  meter = new Meter(TEMPLATE_LIMITS.maxSteps);
  try {
    return fn();
  } finally {
    meter = saved;
  }
}

/** 1-based line, and 1-based column counted in characters (code points), of a source offset. */
export function locate(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, source.length);
  for (let i = source.indexOf('\n'); i !== -1 && i < end; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (const _ of source.slice(lineStart, end)) column++;
  return { line, column };
}

export function errorAt(source: string, offset: number, reason: string): TemplateError {
  const { line, column } = locate(source, offset);
  return new TemplateError(reason, line, column);
}
