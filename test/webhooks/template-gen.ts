/**
 * A seeded generator of webhook templates across Go's text/template language, for the
 * differential test against Go itself (template-differential.test.ts): fields, if/else if/else,
 * with, range with variables, else, break and continue, variables and assignment, comparisons,
 * and/or/not, len/index/slice, print/printf/println with many verbs and flags, html/js/urlquery,
 * json, define/template/block, trim markers, comments, pipelines, parenthesised arguments, and
 * every kind of literal; plus templates Go refuses, at parse time and when executed.
 *
 * What it leaves out, and why: the %p verb and printing the root, `.Data` or `$` with fmt (Go
 * prints memory addresses there: the only bytes that cannot agree; the test masks addresses
 * elsewhere), and unbounded recursion through {{template}} (both refuse; the depths differ).
 */

import {
  BAD_FIELDS,
  CHANGES_FIELDS,
  CMP,
  FIELDS,
  FLAGS,
  FUNCS1,
  INDEXES,
  NUMBERS,
  NUMS,
  PRECS,
  STRINGS,
  STRS,
  VERBS,
  WIDTHS,
  rng,
} from './template-gen-vocabulary.ts';

export { rng };

export class Gen {
  private readonly r: () => number;
  private vars: string[] = [];
  private defines = 0;

  constructor(seed: number) {
    this.r = rng(seed);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)];
  }
  private chance(p: number): boolean {
    return this.r() < p;
  }

  literal(): string {
    const k = this.r();
    if (k < 0.45) return this.pick(NUMBERS);
    if (k < 0.85) return this.pick(STRINGS);
    if (k < 0.98) return this.pick(['true', 'false']);
    return 'nil';
  }

  atom(): string {
    const k = this.r();
    if (k < 0.5) return this.pick(FIELDS);
    if (k < 0.54) return this.pick(CHANGES_FIELDS);
    if (k < 0.56) return this.pick(BAD_FIELDS);
    if (k < 0.66 && this.vars.length) return this.pick(this.vars);
    return this.literal();
  }

  format(): string {
    let f = '';
    const n = 1 + Math.floor(this.r() * 3);
    for (let i = 0; i < n; i++) {
      if (this.chance(0.5)) f += this.pick(['', '<', 'x=', ' | ', '"', '\\n']);
      const verb = this.pick(VERBS);
      f += '%' + this.pick(FLAGS) + this.pick(INDEXES) + this.pick(WIDTHS) + this.pick(PRECS) + verb;
    }
    if (this.chance(0.05)) f += '%';
    return JSON.stringify(f);
  }

  /** An expression usable as an operand (parenthesised when it is a call). */
  operand(depth: number): string {
    if (depth <= 0 || this.chance(0.55)) return this.atom();
    return `(${this.expr(depth - 1)})`;
  }

  expr(depth: number): string {
    const k = this.r();
    const op = () => this.operand(depth - 1);
    if (depth <= 0 || k < 0.18) return this.atom();
    if (k < 0.3) return `printf ${this.format()} ${Array.from({ length: Math.floor(this.r() * 4) }, op).join(' ')}`;
    if (k < 0.4) {
      const f = this.pick(FUNCS1);
      return `${f} ${f === 'len' && this.chance(0.7) ? this.pick(['.Tags', '.Text', '.Changes', '.Data.Tags', '"日本"']) : op()}`;
    }
    if (k < 0.5) {
      // Mostly operands Go can compare: two numbers or two strings.
      const same = this.pick([() => [this.pick(NUMS), this.pick(NUMS)], () => [this.pick(STRS), this.pick(STRS)]]);
      const [a, b] = this.chance(0.6) ? same() : [op(), op()];
      return `${this.pick(CMP)} ${a} ${b}${this.chance(0.1) ? ' ' + op() : ''}`;
    }
    if (k < 0.57) return `${this.pick(['and', 'or'])} ${op()} ${op()}${this.chance(0.3) ? ' ' + op() : ''}`;
    if (k < 0.67) {
      const item = this.pick(['.Tags', '.Tags', '.Changes', '.Changes.tags.Old', '.Text', '.Data.Tags', op()]);
      return `index ${item} ${this.pick(['0', '1', '2', '"text"', '"tags"', '"zz"', '$i', op()])}`;
    }
    if (k < 0.74) {
      const item = this.pick(['.Tags', '.Text', '.Changes.tags.New', '.Rating', op()]);
      const n = Math.floor(this.r() * 4);
      return `slice ${item}${Array.from({ length: n }, () => ' ' + this.pick(['0', '1', '2', '3', '4', op()])).join('')}`;
    }
    if (k < 0.8) return `print ${Array.from({ length: 1 + Math.floor(this.r() * 3) }, op).join(' ')}`;
    if (k < 0.86) return `${op()} | ${this.pick(['print', 'len', 'json', 'html', 'printf "%v"', 'urlquery', 'js'])}`;
    if (k < 0.9) return `${op()} | ${this.pick(CMP)} ${op()}`;
    if (k < 0.94) return `(${this.expr(depth - 1)})${this.pick(['.ID', '.Username', '.Old', '.text', '.X'])}`;
    return `json ${op()}`;
  }

  /** Text between actions, sometimes white space for trim markers to eat. */
  private text(): string {
    return this.pick(['', '', ' ', '\n', ' | ', '{"a": ', 'x', '  \t\n', '<b>', '}']);
  }

  private action(body: string): string {
    const l = this.chance(0.15) ? '{{- ' : '{{';
    const r = this.chance(0.15) ? ' -}}' : '}}';
    return `${l}${body}${r}`;
  }

  statement(depth: number, top = false): string {
    const k = this.r();
    const e = () => {
      const x = this.expr(2);
      return x === 'nil' ? '.Event' : x;
    };
    const body = () => (depth > 0 ? this.statements(depth - 1, 2) : this.action(e()));
    if (depth <= 0 || k < 0.4) return this.text() + this.action(e()) + this.text();
    if (k < 0.52) {
      let s = `{{if ${e()}}}${body()}`;
      if (this.chance(0.4)) s += `{{else if ${e()}}}${body()}`;
      if (this.chance(0.6)) s += `{{else}}${body()}`;
      return s + '{{end}}';
    }
    if (k < 0.6) {
      const w = this.pick([...FIELDS, e()]);
      return (
        `{{with ${w}}}${this.action(this.pick(['.', 'printf "%v" .', 'len .', 'json .']))}` +
        `${this.chance(0.5) ? `{{else}}${body()}` : ''}{{end}}`
      );
    }
    if (k < 0.72) {
      const coll = this.pick([
        '.Tags',
        '.Changes',
        '.Changes.tags.Old',
        '.Changes.zz',
        '(slice .Tags 0 1)',
        '.Text',
        '3',
        '.Uploader',
        '.Changes.tags.New',
        'nil',
        '.Data.Tags',
        '(index .Changes "tags").New',
      ]);
      const decl = this.pick(['', '$e := ', '$i, $e := ', '$i, $e := ', '', '$e := ', '$i, $e := ', '$i, $e = ']);
      const saved = this.vars;
      if (decl.includes('$i')) this.vars = [...this.vars, '$i', '$e'];
      else if (decl) this.vars = [...this.vars, '$e'];
      let inner = this.action(
        this.pick(['.', decl ? '$e' : '.', 'printf "%q" .', decl.includes('$i') ? '$i' : 'len .']),
      );
      if (this.chance(0.3))
        inner += `{{if ${this.pick(['eq 1 1', 'true', e()])}}}{{${this.pick(['break', 'continue'])}}}{{end}}`;
      if (this.chance(0.3)) inner += body();
      const s = `{{range ${decl}${coll}}}${inner}${this.chance(0.4) ? `{{else}}${body()}` : ''}{{end}}`;
      this.vars = saved;
      return s;
    }
    if (k < 0.82) {
      const name = `$v${Math.floor(this.r() * 3)}`;
      const assign = this.vars.includes(name) && this.chance(0.5);
      const s = `{{${name} ${assign ? '=' : ':='} ${e()}}}`;
      if (!this.vars.includes(name)) this.vars = [...this.vars, name];
      return s + this.action(this.pick([name, `printf "%v" ${name}`, `json ${name}`, e()]));
    }
    if (k < 0.9) {
      const name = this.chance(0.05) ? 'webhook' : this.chance(0.05) ? 'T0' : `T${++this.defines}`;
      const inner = this.action(this.pick(['.', '.Username', 'json .', 'printf "%T" .', 'len .', '$']));
      const arg = this.pick(['.Uploader', '.Tags', '"lit"', '42', '.Changes.text', '.Initiator', '', '.Text']);
      if (!top || this.chance(0.5)) return `{{block "${name}" ${arg || '.Text'}}}${inner}{{end}}`;
      return `{{define "${name}"}}${inner}{{end}}${this.text()}{{template "${name}"${arg ? ' ' + arg : ''}}}`;
    }
    if (k < 0.94) return `{{/* a comment */}}${this.text()}{{- /* trimmed */ -}}${this.text()}${this.action(e())}`;
    return `${this.text()}{{${this.pick(['-', ''])} ${e()} ${this.pick(['-', ''])}}}${this.text()}`;
  }

  statements(depth: number, max = 4, top = false): string {
    const n = 1 + Math.floor(this.r() * max);
    let s = '';
    for (let i = 0; i < n; i++) s += this.statement(depth, top);
    return s;
  }

  /** A template whose output is JSON when Go accepts it (for the preview). */
  jsonShaped(): string {
    const e = () => this.expr(2);
    return `{"a": {{json (${e()})}}, "b": "{{js (${e()})}}", "c": {{json (printf ${this.format()} ${this.atom()})}}}`;
  }

  /** Several printf, print and json actions on literals and fields: fmt's verbs and flags in bulk. */
  printfStorm(): string {
    const arg = () => (this.chance(0.6) ? this.pick([...NUMBERS, ...STRINGS, 'true', 'nil']) : this.pick(FIELDS));
    const n = 2 + Math.floor(this.r() * 5);
    let s = '';
    for (let i = 0; i < n; i++) {
      const args = Array.from({ length: Math.floor(this.r() * 4) }, arg).join(' ');
      s += this.pick([
        `{{printf ${this.format()} ${args}}}`,
        `{{print ${args}}}`,
        `{{println ${args}}}`,
        `{{json ${arg()}}}`,
        `{{${this.pick([...NUMBERS, ...STRINGS])}}}`,
        `{{html ${args}}}{{js ${args}}}{{urlquery ${args}}}`,
      ]);
      s += this.pick(['', '|', '\n']);
    }
    return s;
  }

  /** Breaks a template the way typing mistakes do; Go usually refuses the result. */
  mutate(src: string): string {
    const k = this.r();
    const at = Math.floor(this.r() * (src.length + 1));
    if (k < 0.25) return src.slice(0, at) + src.slice(at + 1);
    if (k < 0.5)
      return src.slice(0, at) + this.pick(['{{', '}}', '(', ')', '|', '$', '"', '{{end}}', '{{else}}']) + src.slice(at);
    if (k < 0.75) return src + this.pick(['{{end}}', '{{if .Text}}', '{{.Text', '{{foo}}', '{{$nope}}', '{{break}}']);
    return this.pick([
      '{{.Text 1}}',
      '{{1 | 2}}',
      '{{(1).X}}',
      '{{"a".X}}',
      '{{else}}',
      '{{range}}{{end}}',
      '{{0x}}',
      '{{1e}}',
      "{{'ab'}}",
      '{{"\\q"}}',
      '{{define "a"}}{{define "b"}}{{end}}{{end}}',
      '{{template "nope"}}',
      '{{:}}',
      '{{with .Text}}{{else with .Event}}{{end}}',
      '{{$x = 1}}',
      '{{nil}}',
      '{{len 3}}',
      '{{index .Tags 5}}',
      '{{printf 1}}',
      '{{len nil}}',
      '{{lt .Tags 1}}',
      '{{eq .Tags .Tags}}',
      '{{json 1i}}',
      '{{call .Text}}',
      '{{not}}',
      '{{and}}',
      '{{.Changes.text}}',
      '{{len .Changes}}',
      '{{range .Changes}}{{end}}',
      '{{08}}',
      '{{define "x"}}a{{end}}{{define "x"}}b{{end}}',
      '{{.Uploader.ID.X}}',
      '{{index .Uploader 0}}',
      '{{eq .Changes.tags .Changes.tags}}',
      '{{slice .Text 3 1}}',
      '{{index .Changes 1}}',
      '{{1_}}',
    ]);
  }

  template(): string {
    this.vars = [];
    this.defines = 0;
    const k = this.r();
    if (k < 0.15) return this.jsonShaped();
    if (k < 0.3) return this.mutate(this.statements(1, 3, true));
    if (k < 0.45) return this.printfStorm();
    const s = this.statements(2, 3, true);
    // Most templates guard what only updates have, as the interface tells them to.
    return this.chance(0.15) ? `{{if .Changes}}${s}{{end}}` : s;
  }
}

export function generateTemplates(seed: number, count: number): string[] {
  const g = new Gen(seed);
  return Array.from({ length: count }, () => g.template());
}
