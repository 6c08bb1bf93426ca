/**
 * Executes a parse tree against data, following Go's text/template exec.go: the same pipeline,
 * variable and dot rules, and the same errors. Every loop and every value produced is metered
 * against TEMPLATE_LIMITS, so a render ends quickly with a TemplateError whatever the template.
 */
import { describeArg, type Arg, type Command, type IfNode, type Node, type Pipe, type RangeNode } from './ast.ts';
import { Failure, TEMPLATE_LIMITS, errorAt, fail, meter, withMeter, type TemplateError } from './errors.ts';
import { printAction } from './format.ts';
import { FUNCTIONS } from './functions.ts';
import { checkValue, isNil, isRecord, readField, sortedEntries, truth } from './values.ts';

/** Marks "no value piped in" for a command, distinct from a piped nil. */
const NONE: unique symbol = Symbol('none');
type Final = unknown | typeof NONE;

/** How a list stopped early: a {{break}} or {{continue}} travelling up to its {{range}}. */
type Signal = 'break' | 'continue' | null;

export function execute(source: string, root: Node[], data: unknown): string {
  const state = new State(data);
  try {
    withMeter(() => state.walkList(data, root));
  } catch (e) {
    if (e instanceof Failure) throw state.error(source, e.message);
    // Parse depth bounds recursion, but never let a stack overflow escape as a crash.
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw state.error(source, 'template too complex');
    throw e;
  }
  return state.out.join('');
}

class State {
  readonly out: string[] = [];
  private outBytes = 0;
  private iterations = 0;
  /** Offset of the node being evaluated, for error positions (Go's state.at). */
  private pos = 0;
  private readonly vars: { name: string; value: unknown }[];

  constructor(data: unknown) {
    this.vars = [{ name: '$', value: data }];
  }

  error(source: string, reason: string): TemplateError {
    return errorAt(source, this.pos, reason);
  }

  private at(pos: number, cost = 1): void {
    this.pos = pos;
    meter.charge(cost);
  }

  private write(s: string): void {
    this.outBytes += Buffer.byteLength(s, 'utf8');
    if (this.outBytes > TEMPLATE_LIMITS.maxOutputBytes) fail(`output exceeds ${TEMPLATE_LIMITS.maxOutputBytes} bytes`);
    this.out.push(s);
  }

  walkList(dot: unknown, list: Node[]): Signal {
    for (const node of list) {
      const signal = this.walk(dot, node);
      if (signal) return signal;
    }
    return null;
  }

  private walk(dot: unknown, node: Node): Signal {
    this.at(node.pos);
    switch (node.kind) {
      case 'text':
        this.write(node.text);
        return null;
      case 'action': {
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.at(node.pos);
          this.write(printAction(value));
        }
        return null;
      }
      case 'if':
      case 'with':
        return this.walkIf(dot, node);
      case 'range':
        return this.walkRange(dot, node);
      case 'break':
      case 'continue':
        return node.kind;
    }
  }

  private walkIf(dot: unknown, node: IfNode): Signal {
    const mark = this.vars.length;
    try {
      for (const { pipe, list } of node.branches) {
        const value = this.evalPipeline(dot, pipe);
        if (truth(value)) return this.walkList(node.kind === 'with' ? value : dot, list);
      }
      return node.elseList ? this.walkList(dot, node.elseList) : null;
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: unknown, node: RangeNode): Signal {
    const mark = this.vars.length;
    const value = this.evalPipeline(dot, node.pipe);
    const { decl, isAssign } = node.pipe;
    // The pipeline pushed its variables (if declared); each iteration overwrites them.
    const bodyMark = this.vars.length;
    let count: number;
    let item: (i: number) => [unknown, unknown];
    if (isNil(value)) {
      count = 0; // a nil collection is empty, as in Go
      item = () => [undefined, undefined];
    } else if (Array.isArray(value)) {
      count = value.length;
      item = (i) => [i, checkValue(value[i], 'element')];
    } else if (isRecord(value)) {
      const entries = sortedEntries(value);
      this.at(node.pos, entries.length);
      count = entries.length;
      item = (i) => entries[i];
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      if (decl.length > 1) {
        this.at(node.pos);
        fail(`can't use ${value} to iterate over more than one variable`);
      }
      count = Math.max(0, value);
      item = (i) => [i, i];
    } else {
      this.at(node.pos);
      return fail(`range can't iterate over ${printAction(value)}`);
    }
    try {
      for (let i = 0; i < count; i++) {
        this.at(node.pos);
        if (++this.iterations > TEMPLATE_LIMITS.maxRangeIterations) {
          fail(`range iterations exceed ${TEMPLATE_LIMITS.maxRangeIterations}`);
        }
        const [key, elem] = item(i);
        if (decl.length > 0) {
          const assign = (name: string, v: unknown, slot: number) =>
            isAssign ? this.setVar(name, v) : (this.vars[bodyMark - slot].value = v);
          // With one variable it gets the element; with two, the key then the element.
          if (decl.length === 1) assign(decl[0], elem, 1);
          else {
            assign(decl[0], key, 2);
            assign(decl[1], elem, 1);
          }
        }
        const signal = this.walkList(elem, node.list);
        this.vars.length = bodyMark;
        if (signal === 'break') break;
      }
      if (count === 0 && node.elseList) return this.walkList(dot, node.elseList);
      return null;
    } finally {
      this.vars.length = mark;
    }
  }

  private evalPipeline(dot: unknown, pipe: Pipe): unknown {
    let value: Final = NONE;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, value);
      else this.vars.push({ name, value });
    }
    return value;
  }

  private setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    fail(`undefined variable: ${name}`);
  }

  private varValue(name: string): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return fail(`undefined variable: ${name}`);
  }

  private evalCommand(dot: unknown, cmd: Command, final: Final): unknown {
    const first = cmd.args[0];
    this.at(first.pos);
    switch (first.kind) {
      case 'field':
        return this.evalFields(dot, first.names, cmd.args, final);
      case 'chain':
        return this.evalFields(this.evalArg(dot, first.node), first.fields, cmd.args, final, first.pos);
      case 'variable':
        return this.evalVariable(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd.args, final);
    }
    this.notAFunction(cmd.args, final);
    if (first.kind === 'nil') fail('nil is not a command');
    return this.evalArg(dot, first);
  }

  private notAFunction(args: Arg[], final: Final): void {
    if (args.length > 1 || final !== NONE) fail(`can't give argument to non-function ${describeArg(args[0])}`);
  }

  /** Resolves .A.B.C from `receiver`; only the last field could take arguments, and none can. */
  private evalFields(receiver: unknown, names: string[], args: Arg[], final: Final, pos?: number): unknown {
    if (pos !== undefined) this.at(pos);
    const hasArgs = args.length > 1 || final !== NONE;
    for (let i = 0; i < names.length; i++) {
      if (i === names.length - 1 && hasArgs && !isNil(receiver)) {
        fail(`${names[i]} is not a method but has arguments`);
      }
      receiver = checkValue(readField(receiver, names[i]), `field ${names[i]}`);
    }
    return receiver;
  }

  private evalVariable(dot: unknown, v: Extract<Arg, { kind: 'variable' }>, args: Arg[], final: Final): unknown {
    const value = this.varValue(v.name);
    if (v.fields.length === 0) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFields(value, v.fields, args, final);
  }

  private evalArg(dot: unknown, arg: Arg): unknown {
    this.at(arg.pos);
    switch (arg.kind) {
      case 'dot':
        return dot;
      case 'nil':
        return null;
      case 'bool':
      case 'number':
      case 'string':
        return arg.value;
      case 'field':
        return this.evalFields(dot, arg.names, [arg], NONE);
      case 'chain':
        return this.evalFields(this.evalArg(dot, arg.node), arg.fields, [arg], NONE, arg.pos);
      case 'variable':
        return this.evalVariable(dot, arg, [arg], NONE);
      case 'pipe':
        return this.evalPipeline(dot, arg.pipe);
      case 'identifier':
        return this.evalFunction(dot, arg, [arg], NONE);
    }
  }

  private evalFunction(dot: unknown, ident: Extract<Arg, { kind: 'identifier' }>, args: Arg[], final: Final): unknown {
    const { name } = ident;
    const fn = FUNCTIONS[name];
    const argNodes = args.slice(1);
    const count = argNodes.length + (final === NONE ? 0 : 1);
    if (count < fn.min || count > fn.max) {
      const want = fn.min === fn.max ? `${fn.min}` : `at least ${fn.min}`;
      fail(`wrong number of args for ${name}: want ${want} got ${count}`);
    }
    if (name === 'and' || name === 'or') {
      // Go evaluates and/or lazily: the first decisive operand wins, else the last one.
      let value: unknown;
      for (const a of argNodes) {
        value = this.evalArg(dot, a);
        if (truth(value) === (name === 'or')) return value;
      }
      return final === NONE ? value : final;
    }
    const values = argNodes.map((a) => this.evalArg(dot, a));
    if (final !== NONE) values.push(final);
    // Work done on long strings is paid for, so a loop of cheap-looking calls stays bounded.
    const inputCost = values.reduce<number>(
      (n, v) => n + (typeof v === 'string' ? v.length >> 6 : Array.isArray(v) ? v.length >> 4 : 0),
      0,
    );
    this.at(ident.pos, inputCost);
    let result: unknown;
    try {
      result = fn.call(values);
    } catch (e) {
      if (e instanceof Failure) fail(`error calling ${name}: ${e.message}`);
      throw e;
    }
    if (typeof result === 'string') {
      if (result.length > TEMPLATE_LIMITS.maxOutputBytes) fail(`error calling ${name}: result too large`);
      this.at(ident.pos, result.length >> 6);
    }
    return result;
  }
}
