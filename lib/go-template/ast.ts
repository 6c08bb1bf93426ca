/** Parse tree. Every node keeps its source offset so runtime errors can point at it. */
import type { NumberLiteral } from './numlit.ts';

export type Node = TextNode | ActionNode | IfNode | RangeNode | LoopControlNode | TemplateNode;

/** {{template "name" pipeline}} (and the call half of {{block}}). */
export interface TemplateNode {
  kind: 'template';
  pos: number;
  name: string;
  pipe: Pipe | null;
}

export interface TextNode {
  kind: 'text';
  pos: number;
  text: string;
}

/** {{pipeline}}: printed unless it declares or assigns variables. */
export interface ActionNode {
  kind: 'action';
  pos: number;
  pipe: Pipe;
}

/**
 * {{if}} and {{with}}. An "else if" chain is kept flat in `branches` rather than nested as Go
 * does, so a long chain costs no nesting depth.
 */
export interface IfNode {
  kind: 'if' | 'with';
  pos: number;
  branches: { pipe: Pipe; list: Node[] }[];
  elseList: Node[] | null;
}

export interface RangeNode {
  kind: 'range';
  pos: number;
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | null;
}

export interface LoopControlNode {
  kind: 'break' | 'continue';
  pos: number;
}

export interface Pipe {
  pos: number;
  /** Declared or assigned variable names, with their $. */
  decl: string[];
  isAssign: boolean;
  cmds: Command[];
}

export interface Command {
  pos: number;
  args: Arg[];
}

export type Arg =
  | { kind: 'field'; pos: number; names: string[] } // .A.B
  | { kind: 'variable'; pos: number; name: string; fields: string[] } // $x.A.B
  | { kind: 'chain'; pos: number; node: Arg; fields: string[] } // (pipeline).A.B
  | { kind: 'identifier'; pos: number; name: string } // function name
  | { kind: 'pipe'; pos: number; pipe: Pipe } // (pipeline)
  | { kind: 'dot'; pos: number }
  | { kind: 'nil'; pos: number }
  | { kind: 'bool'; pos: number; value: boolean }
  | { kind: 'number'; pos: number; literal: NumberLiteral }
  | { kind: 'string'; pos: number; value: string; text: string };

export function describeArg(a: Arg): string {
  switch (a.kind) {
    case 'field':
      return '.' + a.names.join('.');
    case 'variable':
      return [a.name, ...a.fields].join('.');
    case 'chain':
      return `${describeArg(a.node)}.${a.fields.join('.')}`;
    case 'identifier':
      return a.name;
    case 'pipe':
      return '(...)';
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(a.value);
    case 'number':
      return a.literal.text;
    case 'string':
      return a.text;
  }
}
