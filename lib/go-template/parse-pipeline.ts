/**
 * Pipelines, commands and operands, as Go's text/template/parse reads them (parse.go: pipeline,
 * command, operand, term), with the same checks at parse time: unknown functions, undefined
 * variables, literals as a later pipeline stage. The control structures are in parser.ts.
 */
import { describeArg, type Arg, type Command, type Pipe } from './ast.ts';
import { TEMPLATE_LIMITS, errorAt } from './errors.ts';
import { FUNCTIONS } from './builtins.ts';
import type { Token } from './lexer.ts';
import { numberLiteral } from './numlit.ts';

const OPERAND_START = new Set([
  'bool',
  'char',
  'complex',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'string',
  'variable',
  'leftParen',
]);

export class TokenStream {
  protected i = 0;
  protected depth = 0;
  /** Variables in scope in the tree being parsed; `$` (the data) always is. */
  protected vars: string[] = ['$'];

  constructor(
    protected readonly source: string,
    protected readonly toks: Token[],
  ) {}

  protected error(pos: number, reason: string): never {
    throw errorAt(this.source, pos, reason);
  }

  protected next(): Token {
    const t = this.toks[this.i];
    if (t.type !== 'eof') this.i++;
    return t;
  }
  protected peek(): Token {
    return this.toks[this.i];
  }
  protected backup(): void {
    this.i--;
  }
  protected nextNonSpace(): Token {
    let t = this.next();
    while (t.type === 'space') t = this.next();
    return t;
  }
  protected peekNonSpace(): Token {
    const t = this.nextNonSpace();
    if (t.type !== 'eof') this.backup();
    return t;
  }

  protected unexpected(t: Token, context: string): never {
    const what =
      t.type === 'eof'
        ? 'EOF'
        : t.type === 'keyword'
          ? `<${t.value}>`
          : JSON.stringify(this.source.slice(t.pos, t.end));
    this.error(t.pos, `unexpected ${what} in ${context}`);
  }

  protected enter(pos: number): void {
    if (++this.depth > TEMPLATE_LIMITS.maxDepth) {
      this.error(pos, `template nesting too deep (more than ${TEMPLATE_LIMITS.maxDepth} levels)`);
    }
  }

  protected pipeline(context: string, end: 'rightDelim' | 'rightParen'): Pipe {
    const pipe: Pipe = { pos: this.peekNonSpace().pos, decl: [], isAssign: false, cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== 'variable') break;
      const save = this.i;
      this.nextNonSpace();
      const next = this.peekNonSpace();
      if (next.type === 'assign' || next.type === 'declare') {
        pipe.isAssign = next.type === 'assign';
        this.nextNonSpace();
        pipe.decl.push(v.value);
        this.vars.push(v.value);
      } else if (next.type === 'punct' && next.value === ',') {
        this.nextNonSpace();
        pipe.decl.push(v.value);
        this.vars.push(v.value);
        if (context === 'range' && pipe.decl.length < 2) {
          const t = this.peekNonSpace().type;
          if (t === 'variable' || t === 'rightDelim' || t === 'rightParen') continue;
          this.error(next.pos, 'range can only initialize variables');
        }
        this.error(next.pos, `too many declarations in ${context}`);
      } else this.i = save;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) break;
      if (!OPERAND_START.has(t.type)) this.unexpected(t, context);
      this.backup();
      pipe.cmds.push(this.command());
    }
    if (pipe.cmds.length === 0) this.error(pipe.pos, `missing value for ${context}`);
    // Only the first stage may be a constant: later stages receive the previous value as an argument.
    pipe.cmds.slice(1).forEach((c, i) => {
      if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0].kind)) {
        this.error(c.pos, `non executable command in pipeline stage ${i + 2}`);
      }
    });
    return pipe;
  }

  private command(): Command {
    const cmd: Command = { pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') this.backup();
      else if (t.type !== 'pipe') this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.error(cmd.pos, 'empty command');
    return cmd;
  }

  private operand(): Arg | null {
    const node = this.term();
    if (!node || this.peek().type !== 'field') return node;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().value);
    switch (node.kind) {
      case 'field':
        return { ...node, names: [...node.names, ...fields] };
      case 'variable':
        return { ...node, fields: [...node.fields, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return this.error(node.pos, `unexpected . after term ${JSON.stringify(describeArg(node))}`);
      default:
        return { kind: 'chain', pos: node.pos, node, fields };
    }
  }

  private term(): Arg | null {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (!Object.hasOwn(FUNCTIONS, t.value)) this.error(t.pos, `function "${t.value}" not defined`);
        return { kind: 'identifier', pos: t.pos, name: t.value };
      case 'dot':
        return { kind: 'dot', pos: t.pos };
      case 'nil':
        return { kind: 'nil', pos: t.pos };
      case 'variable':
        if (!this.vars.includes(t.value)) this.error(t.pos, `undefined variable "${t.value}"`);
        return { kind: 'variable', pos: t.pos, name: t.value, fields: [] };
      case 'field':
        return { kind: 'field', pos: t.pos, names: [t.value] };
      case 'bool':
        return { kind: 'bool', pos: t.pos, value: t.value === 'true' };
      case 'number':
      case 'complex':
      case 'char':
        try {
          return { kind: 'number', pos: t.pos, literal: numberLiteral(t.value, t.type) };
        } catch (e) {
          return this.error(t.pos, (e as Error).message);
        }
      case 'string':
        return { kind: 'string', pos: t.pos, value: t.value, text: this.source.slice(t.pos, t.end) };
      case 'leftParen': {
        this.enter(t.pos);
        const pipe = this.pipeline('parenthesized pipeline', 'rightParen');
        this.depth--;
        return { kind: 'pipe', pos: t.pos, pipe };
      }
    }
    this.backup();
    return null;
  }
}
