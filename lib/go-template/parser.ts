/**
 * Recursive-descent parser modelled on Go's text/template/parse (Go 1.19): the template and the
 * ones it defines with {{define}} and {{block}}, the control structures, and the same checks at
 * parse time. Nesting is capped so a hostile template cannot exhaust the stack.
 */
import type { IfNode, Node, RangeNode, TemplateNode } from './ast.ts';
import { lex, type Token } from './lexer.ts';
import { TokenStream } from './parse-pipeline.ts';

/** The name the template itself has, as in the original (`template.New("webhook")`). */
export const MAIN_TEMPLATE = 'webhook';

/** Every template of one source by name: the template itself and those it defines. */
export type TemplateSet = Map<string, Node[]>;

/** How an item list ended: {{end}} or {{else}} (then `elseIf` when "else if" follows). */
interface StopMarker {
  kind: 'end' | 'else';
  pos: number;
  elseIf?: boolean;
}
const isStop = (n: Node | StopMarker): n is StopMarker => n.kind === 'end' || n.kind === 'else';

export function parse(source: string): TemplateSet {
  const set: TemplateSet = new Map();
  new Parser(source, lex(source), set).parseMain();
  return set;
}

/** parse.IsEmptyTree: only whitespace text (and comments, which are not kept). */
function isEmptyTree(list: Node[]): boolean {
  return list.every((n) => n.kind === 'text' && /^[\t\n\v\f\r \x85\xa0]*$/.test(n.text));
}

class Parser extends TokenStream {
  private rangeDepth = 0;

  constructor(
    source: string,
    toks: Token[],
    private readonly set: TemplateSet,
  ) {
    super(source, toks);
  }

  parseMain(): void {
    const root: Node[] = [];
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'leftDelim') {
        const save = this.i;
        this.next();
        const t = this.nextNonSpace();
        if (t.type === 'keyword' && t.value === 'define') {
          this.parseDefinition(t.pos);
          continue;
        }
        this.i = save;
      }
      const n = this.textOrAction();
      if (isStop(n)) this.error(n.pos, `unexpected {{${n.kind}}}`);
      root.push(n);
    }
    this.add(MAIN_TEMPLATE, root, 0);
  }

  /** Tree.add: a later non-empty definition of a name already defined non-empty is an error. */
  private add(name: string, root: Node[], pos: number): void {
    const existing = this.set.get(name);
    if (existing === undefined || isEmptyTree(existing)) this.set.set(name, root);
    else if (!isEmptyTree(root)) this.error(pos, `template: multiple definition of template "${name}"`);
  }

  /** Parses a separate tree (a define or block body) with its own variables and range depth. */
  private subtree(context: string, pos: number): Node[] {
    const [vars, rangeDepth] = [this.vars, this.rangeDepth];
    this.vars = ['$'];
    this.rangeDepth = 0;
    const { list, stop } = this.itemList(pos);
    if (stop.kind !== 'end') this.error(stop.pos, `unexpected {{else}} in ${context}`);
    [this.vars, this.rangeDepth] = [vars, rangeDepth];
    return list;
  }

  private templateName(context: string): string {
    const t = this.nextNonSpace();
    if (t.type !== 'string') this.unexpected(t, context);
    return t.value;
  }

  private parseDefinition(pos: number): void {
    const name = this.templateName('define clause');
    const t = this.nextNonSpace();
    if (t.type !== 'rightDelim') this.unexpected(t, 'define clause');
    this.add(name, this.subtree('define clause', pos), pos);
  }

  private itemList(pos: number): { list: Node[]; stop: StopMarker } {
    const list: Node[] = [];
    while (this.peekNonSpace().type !== 'eof') {
      const node = this.textOrAction();
      if (isStop(node)) return { list, stop: node };
      list.push(node);
    }
    return this.error(pos, 'unexpected EOF');
  }

  private textOrAction(): Node | StopMarker {
    const t = this.nextNonSpace();
    if (t.type === 'text') return { kind: 'text', pos: t.pos, text: t.value };
    if (t.type === 'leftDelim') return this.action(t);
    return this.unexpected(t, 'input');
  }

  private action(open: Token): Node | StopMarker {
    const t = this.nextNonSpace();
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'block':
          return this.blockControl(open.pos);
        case 'break':
        case 'continue':
          this.expectClose(`{{${t.value}}}`);
          if (this.rangeDepth === 0) this.error(open.pos, `{{${t.value}}} outside {{range}}`);
          return { kind: t.value, pos: open.pos };
        case 'else': {
          const peek = this.peekNonSpace();
          if (peek.type === 'keyword' && peek.value === 'if') return { kind: 'else', pos: open.pos, elseIf: true };
          this.expectClose('else');
          return { kind: 'else', pos: open.pos };
        }
        case 'end':
          this.expectClose('end');
          return { kind: 'end', pos: open.pos };
        case 'if':
        case 'with':
          return this.ifControl(t.value, open.pos);
        case 'range':
          return this.rangeControl(open.pos);
        case 'template':
          return this.templateControl(open.pos);
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
      const { list, stop } = this.itemList(pos);
      node.branches.push({ pipe, list });
      if (stop.kind === 'end') break;
      if (kind === 'if' && stop.elseIf) {
        this.next(); // the "if" of "else if"; the chain continues in this node
        continue;
      }
      node.elseList = this.elseList();
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
    this.rangeDepth++;
    const { list, stop } = this.itemList(pos);
    this.rangeDepth--;
    const node: RangeNode = { kind: 'range', pos, pipe, list, elseList: null };
    if (stop.kind === 'else') node.elseList = this.elseList();
    this.vars.length = scope;
    this.depth--;
    return node;
  }

  private elseList(): Node[] {
    const { list, stop } = this.itemList(this.i);
    if (stop.kind !== 'end') this.error(stop.pos, `expected end; found {{else}}`);
    return list;
  }

  private blockControl(pos: number): TemplateNode {
    const name = this.templateName('block clause');
    const pipe = this.pipeline('block clause', 'rightDelim');
    this.add(name, this.subtree('block clause', pos), pos);
    return { kind: 'template', pos, name, pipe };
  }

  private templateControl(pos: number): TemplateNode {
    const name = this.templateName('template clause');
    if (this.nextNonSpace().type === 'rightDelim') return { kind: 'template', pos, name, pipe: null };
    this.backup();
    return { kind: 'template', pos, name, pipe: this.pipeline('template clause', 'rightDelim') };
  }
}
