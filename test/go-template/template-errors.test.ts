import test from 'ava';
import { TemplateError, compileTemplate, fromBytes } from '../../lib/go-template/index.ts';
import { goData } from './go-values.ts';

function parseError(src: string): TemplateError {
  try {
    compileTemplate(src);
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  throw new Error(`expected a parse error for ${JSON.stringify(src)}`);
}

function renderError(src: string, data: unknown): TemplateError {
  const tpl = compileTemplate(src);
  try {
    tpl.render(goData(data));
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  throw new Error(`expected a render error for ${JSON.stringify(src)}`);
}

// [template, line, column, message fragment]
const PARSE_ERRORS: [string, number, number, string][] = [
  ['{{.Name', 1, 1, 'unclosed action'],
  ['ab\n  {{.Name\n', 2, 3, 'unclosed action'],
  ['{{foo 1}}', 1, 3, 'function "foo" not defined'],
  ['é{{foo}}', 1, 4, 'function "foo" not defined'],
  ['x\n{{.A | nope}}', 2, 8, 'function "nope" not defined'],
  ['{{end}}', 1, 1, 'unexpected {{end}}'],
  ['a\n\n  {{else}}', 3, 3, 'unexpected {{else}}'],
  ['x\n {{if .A}}y', 2, 2, 'unexpected EOF'],
  ['{{range .A}}{{with .B}}{{end}}', 1, 1, 'unexpected EOF'],
  ['{{$x}}', 1, 3, 'undefined variable "$x"'],
  ['{{if true}}{{$y := 1}}{{end}}{{$y}}', 1, 32, 'undefined variable "$y"'],
  ['{{range $i, $v := .L}}{{end}}{{$v}}', 1, 32, 'undefined variable "$v"'],
  ['{{if}}{{end}}', 1, 5, 'missing value for if'],
  ['{{}}', 1, 3, 'missing value for command'],
  ['{{range .A}}{{else}}{{else}}{{end}}', 1, 21, 'expected end; found {{else}}'],
  ['{{with .A}}{{else if .B}}{{end}}', 1, 19, 'unexpected <if> in input'],
  ['{{with .A}}{{else with .B}}{{end}}', 1, 19, 'unexpected <with> in else'],
  ['{{break}}', 1, 1, '{{break}} outside {{range}}'],
  ['{{range .L}}{{else}}{{continue}}{{end}}', 1, 21, '{{continue}} outside {{range}}'],
  ['{{if 1}}{{define "x"}}{{end}}{{end}}', 1, 11, 'unexpected <define> in command'],
  ['{{define "x"}}a{{end}}{{define "x"}}b{{end}}', 1, 25, 'multiple definition of template "x"'],
  ['{{define x}}{{end}}', 1, 10, 'unexpected "x" in define clause'],
  ['{{template .X}}', 1, 12, 'unexpected ".X" in template clause'],
  ['{{block "x"}}{{end}}', 1, 12, 'missing value for block clause'],
  ['{{cal .F}}', 1, 3, 'function "cal" not defined'],
  ['{{"abc}}', 1, 3, 'unterminated quoted string'],
  ['{{`abc}}', 1, 3, 'unterminated raw quoted string'],
  ['{{"\\q"}}', 1, 3, 'invalid escape'],
  ["{{'ab'}}", 1, 3, 'malformed character constant'],
  ['{{.A | 3}}', 1, 8, 'non executable command in pipeline stage 2'],
  // Go 1.19 accepts a trailing `|` ({{.A |}} prints .A), but not an empty stage in between.
  ['{{.A | | print}}', 1, 8, 'unexpected "|" in command'],
  ['{{(1}}', 1, 1, 'unclosed left paren'],
  ['{{1)}}', 1, 4, 'unexpected right paren'],
  ['{{/* x }}', 1, 1, 'unclosed comment'],
  ['{{/* x */ x}}', 1, 1, 'comment ends before closing delimiter'],
  ['{{1x}}', 1, 3, 'bad number syntax: "1x"'],
  ['{{08.5.5}}', 1, 7, 'unexpected ".5" in operand'],
  ['{{0x}}', 1, 3, 'illegal number syntax: "0x"'],
  ['{{1e}}', 1, 3, 'illegal number syntax: "1e"'],
  ['{{99999999999999999999}}', 1, 3, 'integer overflow'],
  ['{{1+2}}', 1, 3, 'bad number syntax: "1+2"'],
  ['{{.A#}}', 1, 5, "bad character U+0023 '#'"],
  ['{{.A ; .B}}', 1, 6, 'unexpected ";" in operand'],
  ['{{"x".Y}}', 1, 3, 'unexpected . after term "\\"x\\""'],
  ['{{$a, $b := .L}}', 1, 5, 'too many declarations in command'],
  ['{{range $a, 3}}{{end}}', 1, 11, 'range can only initialize variables'],
  ['{{end 1}}', 1, 7, 'unexpected "1" in end'],
  ['{{.A :}}', 1, 6, 'expected :='],
  ['{{\u0001}}', 1, 3, 'unrecognized character in action: U+0001'],
];

PARSE_ERRORS.forEach(([src, line, column, fragment]) => {
  test(`parse error for ${JSON.stringify(src)}`, (t) => {
    const err = parseError(src);
    t.true(err.message.includes(fragment), err.message);
    t.deepEqual({ line: err.line, column: err.column }, { line, column }, err.message);
    t.true(err.message.includes(`line ${line}, column ${column}`));
  });
});

// [template, data, line, column, message fragment]
const RENDER_ERRORS: [string, unknown, number, number, string][] = [
  ['{{.A}}\n  {{.A.B}}', { A: 1 }, 2, 5, "can't evaluate field B in type interface {}"],
  ['{{.A.B.C}}', { A: { B: 'str' } }, 1, 3, "can't evaluate field C in type interface {}"],
  ['{{.Tags.length}}', { Tags: [] }, 1, 3, "can't evaluate field length in type interface {}"],
  ['{{index .Tags 5}}', { Tags: [1] }, 1, 3, 'error calling index: index out of range: 5'],
  ['{{index .Tags -1}}', { Tags: [1] }, 1, 3, 'index out of range: -1'],
  ['{{index .Tags "a"}}', { Tags: [1] }, 1, 3, 'cannot index slice/array with type string'],
  ['{{index .M 1}}', { M: {} }, 1, 3, 'value has type int; should be string'],
  ['{{index nil 1}}', {}, 1, 3, 'index of untyped nil'],
  ['x{{lt 1 "a"}}', {}, 1, 4, 'error calling lt: incompatible types for comparison'],
  ['{{eq 1 "1"}}', {}, 1, 3, 'incompatible types for comparison'],
  ['{{eq 1 1.0}}', {}, 1, 3, 'incompatible types for comparison'],
  ['{{lt true false}}', {}, 1, 3, 'invalid type for comparison'],
  ['{{lt nil 1}}', {}, 1, 3, 'invalid type for comparison'],
  ['{{eq .L .L}}', { L: [] }, 1, 3, 'non-comparable type'],
  ['{{eq 1}}', {}, 1, 3, 'missing argument for comparison'],
  ['{{nil}}', {}, 1, 3, 'nil is not a command'],
  ['{{.Name 1}}', { Name: 'x' }, 1, 3, 'Name is not a method but has arguments'],
  ['{{1 | .Name}}', { Name: 'x' }, 1, 7, 'Name is not a method but has arguments'],
  ['{{3 4}}', {}, 1, 3, "can't give argument to non-function 3"],
  ['{{$x := 1}}{{$x 2}}', {}, 1, 14, "can't give argument to non-function $x"],
  ['{{$x = 1}}', {}, 1, 8, 'undefined variable: $x'],
  ['{{$x := $x}}', {}, 1, 9, 'undefined variable: $x'],
  ['{{len 3}}', {}, 1, 3, 'error calling len: len of type int'],
  ['{{len nil}}', {}, 1, 3, 'len of untyped nil'],
  ['{{len}}', {}, 1, 3, 'wrong number of args for len: want 1 got 0'],
  ['{{not 1 2}}', {}, 1, 3, 'wrong number of args for not: want 1 got 2'],
  ['{{and}}', {}, 1, 3, 'wrong number of args for and: want at least 1 got 0'],
  ['{{printf 1}}', {}, 1, 10, 'expected string; found 1'],
  ['{{printf .N}}', { N: 1 }, 1, 10, 'wrong type for value; expected string; got float64'],
  ['\n\n  {{range .S}}{{end}}', { S: 'abc' }, 3, 11, "range can't iterate over abc"],
  ['{{range 3}}{{end}}', {}, 1, 9, "range can't iterate over 3"],
  ['{{slice .L 2 1}}', { L: [1, 2] }, 1, 3, 'invalid slice index: 2 > 1'],
  ['{{slice .L 0 3}}', { L: [1, 2] }, 1, 3, 'index out of range: 3'],
  ['{{9223372036854775808}}', {}, 1, 3, '9223372036854775808 overflows int'],
  ['{{json 1i}}', {}, 1, 3, 'json: unsupported type: complex128'],
  ['{{call .L}}', { L: [] }, 1, 3, 'non-function of type []interface {}'],
  ['{{template "nope"}}', {}, 1, 1, 'template "nope" not defined'],
];

RENDER_ERRORS.forEach(([src, data, line, column, fragment]) => {
  test(`render error for ${JSON.stringify(src)}`, (t) => {
    const err = renderError(src, data);
    t.true(err.message.includes(fragment), err.message);
    t.deepEqual({ line: err.line, column: err.column }, { line, column }, err.message);
  });
});

test('TemplateError exposes the bare reason and a positioned message', (t) => {
  const err = parseError('{{foo}}');
  t.is(err.name, 'TemplateError');
  t.is(err.reason, 'function "foo" not defined');
  t.is(err.message, 'template: line 1, column 3: function "foo" not defined');
  t.true(err instanceof Error);
});

test('field access through no value yields no value, but not through other scalars', (t) => {
  const render = (src: string, data: unknown) => fromBytes(compileTemplate(src).render(goData(data)));
  t.is(render('{{.A.B.C}}', { A: {} }), '<no value>');
  t.regex(t.throws(() => render('{{.A.B}}', { A: null }))!.message, /nil pointer evaluating interface \{\}\.B/);
  t.throws(() => render('{{.A.B}}', { A: 1 }), { instanceOf: TemplateError });
  t.throws(() => render('{{.A.B}}', { A: true }), { instanceOf: TemplateError });
});
