/**
 * Recursive-descent parser modelled on Go's text/template/parse, with the same checks at parse
 * time: unknown functions, undefined variables, {{break}} outside {{range}}, literals used as a
 * later pipeline stage. Nesting is capped so a hostile template cannot exhaust the stack.
 */
import { describeArg, type Arg, type Command, type IfNode, type Node, type Pipe, type RangeNode } from './ast.ts';
import { TEMPLATE_LIMITS, errorAt } from './errors.ts';
import { FUNCTIONS } from './functions.ts';
import { lex, type Token, type TokenType } from './lexer.ts';

/** How an item list ended: {{end}}, {{else}} (maybe followed by "if"/"with"), or end of input. */
interface StopMarker {
  kind: 'end' | 'else';
  pos: number;
  chained?: 'if' | 'with';
}
type Stop = StopMarker | null;
const isStop = (n: Node | StopMarker): n is StopMarker => n.kind === 'end' || n.kind === 'else';

const UNSUPPORTED_KEYWORDS = new Set(['define', 'template', 'block']);
const OPERAND_START = new Set<TokenType>([
  'bool',
  'char',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'string',
  'variable',
  'leftParen',
]);

export function parse(source: string): Node[] {
  return new Parser(source).parseTemplate();
}

class Parser {
  private readonly toks: Token[];
  private i = 0;
  private depth = 0;
  private rangeDepth = 0;
  /** Variables in scope; `$` (the data) always is. */
  private vars: string[] = ['$'];

  constructor(private readonly source: string) {
    this.toks = lex(source);
  }

  parseTemplate(): Node[] {
    const { list, stop } = this.itemList();
    if (stop) this.error(stop.pos, `unexpected {{${stop.kind}}}`);
    return list;
  }

  private error(pos: number, reason: string): never {
    throw errorAt(this.source, pos, reason);
  }

  private next(): Token {
    const t = this.toks[this.i];
    if (t.type !== 'eof') this.i++;
    return t;
  }
  private peek(): Token {
    return this.toks[this.i];
  }
  private backup(): void {
    this.i--;
  }
  private nextNonSpace(): Token {
    let t = this.next();
    while (t.type === 'space') t = this.next();
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    if (t.type !== 'eof') this.backup();
    return t;
  }

  private unexpected(t: Token, context: string): never {
    const what =
      t.type === 'eof'
        ? 'EOF'
        : t.type === 'keyword'
          ? `<${t.value}>`
          : JSON.stringify(this.source.slice(t.pos, t.end));
    this.error(t.pos, `unexpected ${what} in ${context}`);
  }

  private enter(pos: number): void {
    if (++this.depth > TEMPLATE_LIMITS.maxDepth) {
      this.error(pos, `template nesting too deep (more than ${TEMPLATE_LIMITS.maxDepth} levels)`);
    }
  }

  private itemList(): { list: Node[]; stop: Stop } {
    const list: Node[] = [];
    for (;;) {
      const t = this.next();
      if (t.type === 'eof') return { list, stop: null };
      if (t.type === 'text') {
        list.push({ kind: 'text', pos: t.pos, text: t.value });
        continue;
      }
      // The lexer only emits text, actions and eof at top level.
      const node = this.action(t);
      if (isStop(node)) return { list, stop: node };
      list.push(node);
    }
  }

  private action(open: Token): Node | StopMarker {
    const t = this.nextNonSpace();
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'if':
        case 'with':
          return this.ifControl(t.value, open.pos);
        case 'range':
          return this.rangeControl(open.pos);
        case 'end':
          this.expectClose('end');
          return { kind: 'end', pos: open.pos };
        case 'else': {
          const peek = this.peekNonSpace();
          if (peek.type === 'keyword' && (peek.value === 'if' || peek.value === 'with')) {
            this.next();
            return { kind: 'else', pos: open.pos, chained: peek.value };
          }
          this.expectClose('else');
          return { kind: 'else', pos: open.pos };
        }
        case 'break':
        case 'continue':
          this.expectClose(`{{${t.value}}}`);
          if (this.rangeDepth === 0) this.error(open.pos, `{{${t.value}}} outside {{range}}`);
          return { kind: t.value as 'break' | 'continue', pos: open.pos };
        default:
          if (UNSUPPORTED_KEYWORDS.has(t.value)) this.error(t.pos, `{{${t.value}}} is not supported`);
      }
    }
    this.backup();
    return { kind: 'action', pos: open.pos, pipe: this.pipeline('command', 'rightDelim') };
  }

  private expectClose(context: string): void {
    const t = this.nextNonSpace();
    if (t.type !== 'rightDelim') this.unexpected(t, context);
  }

  private ifControl(kind: 'if' | 'with', pos: number): IfNode {
    this.enter(pos);
    const scope = this.vars.length;
    const node: IfNode = { kind, pos, branches: [], elseList: null };
    for (;;) {
      const pipe = this.pipeline(kind, 'rightDelim');
      const afterPipe = this.vars.length;
      const { list, stop } = this.itemList();
      // Variables declared in a branch's body end with it; those of its condition carry on.
      this.vars.length = afterPipe;
      if (!stop) this.error(pos, `unclosed {{${kind}}}: missing {{end}}`);
      node.branches.push({ pipe, list });
      if (stop.kind === 'end') break;
      if (stop.chained === kind) continue;
      if (stop.chained) this.error(stop.pos, `{{else ${stop.chained}}} cannot continue {{${kind}}}`);
      node.elseList = this.elseList(kind, pos);
      break;
    }
    this.vars.length = scope;
    this.depth--;
    return node;
  }

  private rangeControl(pos: number): RangeNode {
    this.enter(pos);
    const scope = this.vars.length;
    const pipe = this.pipeline('range', 'rightDelim');
    const afterPipe = this.vars.length;
    this.rangeDepth++;
    const { list, stop } = this.itemList();
    this.rangeDepth--;
    this.vars.length = afterPipe;
    if (!stop) this.error(pos, 'unclosed {{range}}: missing {{end}}');
    if (stop.chained) this.error(stop.pos, `{{else ${stop.chained}}} cannot continue {{range}}`);
    const node: RangeNode = { kind: 'range', pos, pipe, list, elseList: null };
    if (stop.kind === 'else') node.elseList = this.elseList('range', pos);
    this.vars.length = scope;
    this.depth--;
    return node;
  }

  private elseList(kind: string, pos: number): Node[] {
    const { list, stop } = this.itemList();
    if (!stop) this.error(pos, `unclosed {{${kind}}}: missing {{end}}`);
    if (stop.kind !== 'end') this.error(stop.pos, `expected {{end}}; found {{else}}`);
    return list;
  }

  private pipeline(context: string, end: 'rightDelim' | 'rightParen'): Pipe {
    const pipe: Pipe = { pos: this.peekNonSpace().pos, decl: [], isAssign: false, cmds: [] };
    const declared: string[] = [];
    const v = this.peekNonSpace();
    if (v.type === 'variable') {
      const save = this.i;
      this.nextNonSpace();
      const after = this.peekNonSpace();
      if (after.type === 'declare' || after.type === 'assign') {
        this.nextNonSpace();
        this.declare(pipe, declared, v, after.type === 'assign');
      } else if (after.type === 'punct' && after.value === ',') {
        this.nextNonSpace();
        if (context !== 'range') this.error(after.pos, `too many declarations in ${context}`);
        const second = this.nextNonSpace();
        const op = this.nextNonSpace();
        if (second.type !== 'variable' || (op.type !== 'declare' && op.type !== 'assign')) {
          this.error(second.pos, 'range can only initialize variables');
        }
        this.declare(pipe, declared, v, op.type === 'assign');
        this.declare(pipe, declared, second, op.type === 'assign');
      } else {
        this.i = save;
      }
    }
    let needCommand = false;
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        if (needCommand) this.error(t.pos, `missing command after | in ${context}`);
        break;
      }
      if (!OPERAND_START.has(t.type)) this.unexpected(t, context);
      this.backup();
      const { cmd, piped } = this.command();
      pipe.cmds.push(cmd);
      needCommand = piped;
    }
    if (pipe.cmds.length === 0) this.error(pipe.pos, `missing value for ${context}`);
    // Only the first stage may be a constant: later stages receive the previous value as an argument.
    pipe.cmds.slice(1).forEach((c, i) => {
      if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0].kind)) {
        this.error(c.pos, `non executable command in pipeline stage ${i + 2}`);
      }
    });
    // New variables are visible after their declaration, not inside its own pipeline.
    this.vars.push(...declared);
    return pipe;
  }

  private declare(pipe: Pipe, declared: string[], v: Token, isAssign: boolean): void {
    if (isAssign && !this.vars.includes(v.value)) this.error(v.pos, `undefined variable "${v.value}"`);
    if (!isAssign && v.value === '$') this.error(v.pos, 'cannot declare $');
    pipe.decl.push(v.value);
    pipe.isAssign = isAssign;
    if (!isAssign) declared.push(v.value);
  }

  private command(): { cmd: Command; piped: boolean } {
    const cmd: Command = { pos: this.peekNonSpace().pos, args: [] };
    let piped = false;
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') this.backup();
      else if (t.type === 'pipe') piped = true;
      else this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.error(cmd.pos, 'empty command');
    return { cmd, piped };
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
        return this.error(node.pos, `unexpected . after term ${describeArg(node)}`);
      default:
        return { kind: 'chain', pos: node.pos, node, fields };
    }
  }

  private term(): Arg | null {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (t.value === 'call') this.error(t.pos, 'function "call" is not supported');
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
        return { kind: 'number', pos: t.pos, value: this.number(t), text: t.value };
      case 'char':
        return { kind: 'number', pos: t.pos, value: t.value.codePointAt(0)!, text: this.source.slice(t.pos, t.end) };
      case 'string':
        return { kind: 'string', pos: t.pos, value: t.value };
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

  /** Go's number syntax: decimal, 0x/0o/0b and legacy-octal integers, decimal floats, `_` separators. */
  private number(t: Token): number {
    const text = t.value;
    const m = /^([+-]?)(.*)$/s.exec(text)!;
    const sign = m[1] === '-' ? -1 : 1;
    const body = m[2];
    // Underscores may only separate digits (or follow a base prefix).
    const wellFormedUnderscores = !/(^_|_$|__|_\.|\._|_[eE]|[eE][+-]?_)/.test(body.replace(/^0[xXoObB]_/, '0x'));
    let value = NaN;
    if (wellFormedUnderscores) {
      const digits = body.replace(/_/g, '');
      if (/^0[xX][0-9a-fA-F]+$/.test(digits)) value = parseInt(digits.slice(2), 16);
      else if (/^0[oO][0-7]+$/.test(digits)) value = parseInt(digits.slice(2), 8);
      else if (/^0[bB][01]+$/.test(digits)) value = parseInt(digits.slice(2), 2);
      else if (/^0[0-7]+$/.test(digits)) value = parseInt(digits.slice(1), 8);
      else if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(digits)) value = Number(digits);
    }
    if (!Number.isFinite(value)) this.error(t.pos, `illegal number syntax: "${text}"`);
    return sign * value;
  }
}
