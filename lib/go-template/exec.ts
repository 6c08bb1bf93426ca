/**
 * Executes a template set against typed data, a port of Go's text/template exec.go (Go 1.19):
 * the same pipeline, variable, dot and field rules, the same type checks on function arguments,
 * and a failure wherever Go fails. Every loop is metered against TEMPLATE_LIMITS, so a render
 * ends quickly with a TemplateError whatever the template.
 */
import type { IfNode, Node, RangeNode } from './ast.ts';
import { sliceItems, sortedMapEntries } from './collections.ts';
import { Failure, TEMPLATE_LIMITS, errorAt, fail, withMeter, type TemplateError } from './errors.ts';
import { Evaluator } from './exec-eval.ts';
import { sprint } from './fmt.ts';
import { MAIN_TEMPLATE, type TemplateSet } from './parser.ts';
import { T, indirect, indirectInterface, isTrue, printable, toBytes, val, type RV, type Value } from './types.ts';

/** How a list stopped early: a {{break}} or {{continue}} travelling up to its {{range}}. */
type Signal = 'break' | 'continue' | null;

/** Renders the set's main template; the output is a byte string. */
export function execute(source: string, set: TemplateSet, data: Value): string {
  const state = new State(set, data);
  try {
    withMeter(() => state.walkList(data, set.get(MAIN_TEMPLATE) ?? []));
  } catch (e) {
    if (e instanceof Failure) throw state.error(source, e.message);
    // Parse depth bounds recursion, but never let a stack overflow escape as a crash.
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw state.error(source, 'template too complex');
    throw e;
  }
  return state.out.join('');
}

class State extends Evaluator {
  readonly out: string[] = [];
  private outBytes = 0;
  private iterations = 0;
  private depth = 0;

  constructor(
    private readonly set: TemplateSet,
    data: Value,
  ) {
    super(data);
  }

  error(source: string, reason: string): TemplateError {
    return errorAt(source, this.pos, reason);
  }

  private write(s: string): void {
    this.outBytes += s.length;
    if (this.outBytes > TEMPLATE_LIMITS.maxOutputBytes) fail(`output exceeds ${TEMPLATE_LIMITS.maxOutputBytes} bytes`);
    this.out.push(s);
  }

  walkList(dot: RV, list: Node[]): Signal {
    for (const node of list) {
      const signal = this.walk(dot, node);
      if (signal) return signal;
    }
    return null;
  }

  private walk(dot: RV, node: Node): Signal {
    this.at(node.pos);
    switch (node.kind) {
      case 'text':
        this.write(node.text);
        return null;
      case 'action': {
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.at(node.pos);
          const p = printable(value);
          // A string prints as itself (the common case: json's result); everything else through fmt.
          this.write(p !== null && p.t.kind === 'string' ? (p.v as string) : sprint([p]));
        }
        return null;
      }
      case 'if':
      case 'with':
        return this.walkIf(dot, node);
      case 'range':
        return this.walkRange(dot, node);
      case 'template':
        return this.walkTemplate(dot, node);
      case 'break':
      case 'continue':
        return node.kind;
    }
  }

  private walkIf(dot: RV, node: IfNode): Signal {
    const mark = this.vars.length;
    try {
      for (const { pipe, list } of node.branches) {
        const value = this.evalPipeline(dot, pipe);
        if (isTrue(indirectInterface(value))) return this.walkList(node.kind === 'with' ? value : dot, list);
      }
      return node.elseList ? this.walkList(dot, node.elseList) : null;
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: RV, node: RangeNode): Signal {
    this.at(node.pos);
    const outer = this.vars.length;
    try {
      const piped = this.evalPipeline(dot, node.pipe);
      const value = piped === null ? null : indirect(piped)[0];
      const mark = this.vars.length;
      let items: [RV, RV][] = [];
      if (value !== null) {
        if (value.t.kind === 'slice') items = sliceItems(value).map((e, i) => [val(T.int, BigInt(i)), e]);
        else if (value.t.kind === 'map') items = sortedMapEntries(value);
        else fail(`range can't iterate over ${sprint([value])}`);
      }
      for (const [index, elem] of items) if (this.rangeOnce(node, mark, index, elem) === 'break') break;
      if (items.length === 0 && node.elseList) return this.walkList(dot, node.elseList);
      return null;
    } finally {
      this.vars.length = outer;
    }
  }

  /** One iteration of a {{range}}: its variables set, its body walked (`mark`: the variables before the body's). */
  private rangeOnce(node: RangeNode, mark: number, index: RV, elem: RV): Signal {
    this.at(node.pos);
    if (++this.iterations > TEMPLATE_LIMITS.maxRangeIterations) {
      fail(`range iterations exceed ${TEMPLATE_LIMITS.maxRangeIterations}`);
    }
    if (node.pipe.decl.length > 0) this.vars[this.vars.length - 1].value = elem;
    if (node.pipe.decl.length > 1) this.vars[this.vars.length - 2].value = index;
    const signal = this.walkList(elem, node.list);
    this.vars.length = mark;
    return signal;
  }

  private walkTemplate(dot: RV, node: Extract<Node, { kind: 'template' }>): Signal {
    const tree = this.set.get(toBytes(node.name)) ?? this.set.get(node.name);
    if (!tree) fail(`template ${JSON.stringify(node.name)} not defined`);
    if (this.depth >= TEMPLATE_LIMITS.maxDepth) fail(`exceeded maximum template depth (${TEMPLATE_LIMITS.maxDepth})`);
    // Variables declared by the pipeline persist; the template itself sees only $.
    const newDot = node.pipe ? this.evalPipeline(dot, node.pipe) : null;
    const saved = this.vars;
    this.vars = [{ name: '$', value: newDot }];
    this.depth++;
    try {
      this.walkList(newDot, tree);
    } finally {
      this.depth--;
      this.vars = saved;
    }
    return null;
  }
}
