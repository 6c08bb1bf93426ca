/**
 * Expressions, a port of Go's text/template exec.go (Go 1.19): pipelines, commands, fields,
 * variables, constants, and function calls with Go's checks of argument types (validateType).
 * The statements that use them (if, range, template, printing) are in exec.ts.
 */
import { describeArg, type Arg, type Command, type Pipe } from './ast.ts';
import { FUNCTIONS, type ParamType } from './builtins.ts';
import { Failure, fail, meter } from './errors.ts';
import { evalField } from './fields.ts';
import { T, indirectInterface, isTrue, val, type RV, type Value } from './types.ts';

/** Marks "no value piped in" for a command (Go's missingVal), distinct from an invalid value. */
const MISSING: unique symbol = Symbol('missing');
type Final = RV | typeof MISSING;

/** The type of a function's i-th parameter (a variadic one's last type repeats). */
function paramType(fn: (typeof FUNCTIONS)[string], i: number): ParamType {
  return fn.variadic && i >= fn.params.length - 1 ? fn.params[fn.params.length - 1] : fn.params[i];
}

export class Evaluator {
  /** Offset of the node being evaluated, for error positions (Go's state.at). */
  protected pos = 0;
  protected vars: { name: string; value: RV }[];

  constructor(data: RV) {
    this.vars = [{ name: '$', value: data }];
  }

  protected at(pos: number, cost = 1): void {
    this.pos = pos;
    meter.charge(cost);
  }

  protected evalPipeline(dot: RV, pipe: Pipe): RV {
    this.at(pipe.pos);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // A value of type interface {} is replaced by what it holds.
      if (value !== null && value.t.kind === 'interface') value = value.v as RV;
    }
    const result = value as RV;
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, result);
      else this.vars.push({ name, value: result });
    }
    return result;
  }

  protected setVar(name: string, value: RV): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    fail(`undefined variable: ${name}`);
  }

  protected varValue(name: string): RV {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return fail(`undefined variable: ${name}`);
  }

  protected notAFunction(args: Arg[], final: Final): void {
    if (args.length > 1 || final !== MISSING) fail(`can't give argument to non-function ${describeArg(args[0])}`);
  }

  protected evalCommand(dot: RV, cmd: Command, final: Final): RV {
    const first = cmd.args[0];
    switch (first.kind) {
      case 'field':
        return this.evalFieldChain(dot, first.pos, first.names, cmd.args, final);
      case 'chain':
        return this.evalChain(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first.pipe);
      case 'variable':
        return this.evalVariable(dot, first, cmd.args, final);
    }
    this.at(first.pos);
    this.notAFunction(cmd.args, final);
    if (first.kind === 'nil') fail('nil is not a command');
    return this.constant(dot, first);
  }

  protected constant(dot: RV, a: Arg): RV {
    switch (a.kind) {
      case 'bool':
        return val(T.bool, a.value);
      case 'dot':
        return dot;
      case 'number': {
        const c = a.literal.value;
        return 'error' in c ? fail(c.error) : c;
      }
      case 'string':
        return val(T.string, a.value);
    }
    return fail(`can't evaluate command ${describeArg(a)}`);
  }

  protected evalFieldChain(receiver: RV, pos: number, names: string[], args: Arg[], final: Final): RV {
    this.at(pos);
    const n = names.length;
    for (let i = 0; i < n - 1; i++) receiver = evalField(names[i], false, receiver);
    return evalField(names[n - 1], args.length > 1 || final !== MISSING, receiver);
  }

  protected evalChain(dot: RV, chain: Extract<Arg, { kind: 'chain' }>, args: Arg[], final: Final): RV {
    this.at(chain.pos);
    if (chain.node.kind === 'nil') fail(`indirection through explicit nil in ${describeArg(chain)}`);
    const receiver = this.evalArg(dot, null, chain.node) as RV;
    return this.evalFieldChain(receiver, chain.pos, chain.fields, args, final);
  }

  protected evalVariable(dot: RV, v: Extract<Arg, { kind: 'variable' }>, args: Arg[], final: Final): RV {
    this.at(v.pos);
    const value = this.varValue(v.name);
    if (v.fields.length === 0) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, v.pos, v.fields, args, final);
  }

  /**
   * exec.go's validateType: what a parameter of type `typ` receives (null: no type, as for a
   * chain). A reflect.Value or interface {} parameter takes an invalid value as it is.
   */
  protected validateType(value: RV, typ: ParamType | null): RV | string {
    if (value === null) {
      if (typ === 'string') return fail('invalid value; expected string');
      return null;
    }
    if (typ === 'string') {
      if (value.t.name === 'string') return value.v as string;
      const inner = value.t.kind === 'interface' && value.v !== null ? (value.v as Value) : value;
      if (inner.t.name === 'string') return inner.v as string;
      return fail(`wrong type for value; expected string; got ${inner.t.name}`);
    }
    // An interface {} parameter receives what an interface value holds.
    if (typ === 'any' && value.t.kind === 'interface') return value.v as RV;
    return value;
  }

  protected evalArg(dot: RV, typ: ParamType | null, a: Arg): RV | string {
    this.at(a.pos);
    switch (a.kind) {
      case 'dot':
        return this.validateType(dot, typ);
      case 'nil':
        if (typ === 'string') return fail('cannot assign nil to string');
        return null;
      case 'field':
        return this.validateType(this.evalFieldChain(dot, a.pos, a.names, [a], MISSING), typ);
      case 'variable':
        return this.validateType(this.evalVariable(dot, a, [a], MISSING), typ);
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, a.pipe), typ);
      case 'identifier':
        return this.validateType(this.evalFunction(dot, a, [a], MISSING), typ);
      case 'chain':
        return this.validateType(this.evalChain(dot, a, [a], MISSING), typ);
    }
    if (typ === 'string') {
      if (a.kind === 'string') return a.value;
      return fail(`expected string; found ${describeArg(a)}`);
    }
    return this.constant(dot, a);
  }

  protected evalFunction(dot: RV, ident: Extract<Arg, { kind: 'identifier' }>, args: Arg[], final: Final): RV {
    this.at(ident.pos);
    const { name } = ident;
    const fn = FUNCTIONS[name];
    const argNodes = args.slice(1);
    const numIn = argNodes.length + (final === MISSING ? 0 : 1);
    const numFixed = fn.variadic ? fn.params.length - 1 : argNodes.length;
    if (fn.variadic) {
      if (numIn < numFixed) {
        fail(`wrong number of args for ${name}: want at least ${fn.params.length - 1} got ${argNodes.length}`);
      }
    } else if (numIn !== fn.params.length) {
      fail(`wrong number of args for ${name}: want ${fn.params.length} got ${numIn}`);
    }
    if (name === 'and' || name === 'or') {
      // Go evaluates and/or lazily: the first decisive operand wins, else the last one.
      let v: RV = null;
      for (const a of argNodes) {
        v = this.evalArg(dot, 'value', a) as RV;
        if (isTrue(indirectInterface(v)) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = this.validateType(final, 'value') as RV;
      return v;
    }
    const argv: (RV | string)[] = [];
    for (let i = 0; i < argNodes.length; i++) argv.push(this.evalArg(dot, paramType(fn, i), argNodes[i]));
    if (final !== MISSING) argv.push(this.validateType(final, paramType(fn, numIn - 1)));
    // Work on long strings is paid for, so a loop of cheap-looking calls stays bounded.
    let cost = 1;
    for (const a of argv)
      if (a !== null) cost += (typeof a === 'string' ? a.length : a.t.kind === 'string' ? a.v.length : 0) >> 6;
    this.at(ident.pos, cost);
    let result: RV;
    try {
      result = fn.call(argv);
    } catch (e) {
      if (e instanceof Failure) fail(`error calling ${name}: ${e.message}`);
      throw e;
    }
    if (result !== null && result.t.kind === 'string') this.at(ident.pos, (result.v as string).length >> 6);
    return result;
  }
}
