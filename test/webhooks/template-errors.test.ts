import test from 'ava';
import { TemplateError, compileTemplate } from '../../src/webhooks/template/index.ts';

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
    tpl.render(data);
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
  ['x\n {{if .A}}y', 2, 2, 'unclosed {{if}}'],
  ['{{range .A}}{{with .B}}{{end}}', 1, 1, 'unclosed {{range}}'],
  ['{{$x}}', 1, 3, 'undefined variable "$x"'],
  ['{{$x = 1}}', 1, 3, 'undefined variable "$x"'],
  ['{{if true}}{{$y := 1}}{{end}}{{$y}}', 1, 32, 'undefined variable "$y"'],
  ['{{$x := $x}}', 1, 9, 'undefined variable "$x"'],
  ['{{range $i, $v := .L}}{{end}}{{$v}}', 1, 32, 'undefined variable "$v"'],
  ['{{if}}{{end}}', 1, 5, 'missing value for if'],
  ['{{}}', 1, 3, 'missing value for command'],
  ['{{range .A}}{{else}}{{else}}{{end}}', 1, 21, 'expected {{end}}; found {{else}}'],
  ['{{with .A}}{{else if .B}}{{end}}', 1, 12, '{{else if}} cannot continue {{with}}'],
  ['{{break}}', 1, 1, '{{break}} outside {{range}}'],
  ['{{range .L}}{{else}}{{continue}}{{end}}', 1, 21, '{{continue}} outside {{range}}'],
  ['{{define "x"}}{{end}}', 1, 3, '{{define}} is not supported'],
  ['{{template "x"}}', 1, 3, '{{template}} is not supported'],
  ['{{block "x" .}}{{end}}', 1, 3, '{{block}} is not supported'],
  ['{{call .F}}', 1, 3, 'function "call" is not supported'],
  ['{{html .F}}', 1, 3, 'function "html" not defined'],
  ['{{"abc}}', 1, 3, 'unterminated quoted string'],
  ['{{`abc}}', 1, 3, 'unterminated raw quoted string'],
  ['{{"\\q"}}', 1, 3, 'invalid escape'],
  ["{{'ab'}}", 1, 3, 'malformed character constant'],
  ['{{.A | 3}}', 1, 8, 'non executable command in pipeline stage 2'],
  ['{{.A |}}', 1, 7, 'missing command after |'],
  ['{{(1}}', 1, 1, 'unclosed left paren'],
  ['{{1)}}', 1, 4, 'unexpected right paren'],
  ['{{/* x }}', 1, 1, 'unclosed comment'],
  ['{{/* x */ x}}', 1, 1, 'comment ends before closing delimiter'],
  ['{{1x}}', 1, 3, 'bad number syntax: "1x"'],
  ['{{08.5.5}}', 1, 7, 'unexpected ".5" in operand'],
  ['{{0x}}', 1, 3, 'illegal number syntax: "0x"'],
  ['{{.A#}}', 1, 5, "bad character U+0023 '#'"],
  ['{{.A ; .B}}', 1, 6, 'unexpected ";" in operand'],
  ['{{"x".Y}}', 1, 3, 'unexpected . after term "x"'],
  ['{{$a, $b := .L}}', 1, 5, 'too many declarations in command'],
  ['{{range $a, 3}}{{end}}', 1, 13, 'range can only initialize variables'],
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
  ['{{.A}}\n  {{.Missing}}', { A: 1 }, 2, 5, "can't evaluate field Missing"],
  ['{{.A.B.C}}', { A: { B: 'str' } }, 1, 3, "can't evaluate field C in type string"],
  ['{{.Tags.length}}', { Tags: [] }, 1, 3, "can't evaluate field length in type []interface {}"],
  ['{{index .Tags 5}}', { Tags: [1] }, 1, 3, 'error calling index: index out of range: 5'],
  ['{{index .Tags -1}}', { Tags: [1] }, 1, 3, 'index out of range: -1'],
  ['{{index .Tags "a"}}', { Tags: [1] }, 1, 3, 'cannot index slice/array with type string'],
  ['{{index .M 1}}', { M: {} }, 1, 3, 'value has type int; should be string'],
  ['{{index nil 1}}', {}, 1, 3, 'index of untyped nil'],
  ['x{{lt 1 "a"}}', {}, 1, 4, 'error calling lt: incompatible types for comparison'],
  ['{{eq 1 "1"}}', {}, 1, 3, 'incompatible types for comparison'],
  ['{{lt true false}}', {}, 1, 3, 'invalid type for comparison'],
  ['{{lt nil 1}}', {}, 1, 3, 'invalid type for comparison'],
  ['{{eq .L .L}}', { L: [] }, 1, 3, 'non-comparable type'],
  ['{{eq 1}}', {}, 1, 3, 'missing argument for comparison'],
  ['{{nil}}', {}, 1, 3, 'nil is not a command'],
  ['{{.Name 1}}', { Name: 'x' }, 1, 3, 'Name is not a method but has arguments'],
  ['{{1 | .Name}}', { Name: 'x' }, 1, 7, 'Name is not a method but has arguments'],
  ['{{3 4}}', {}, 1, 3, "can't give argument to non-function 3"],
  ['{{$x := 1}}{{$x 2}}', {}, 1, 14, "can't give argument to non-function $x"],
  ['{{len 3}}', {}, 1, 3, 'error calling len: len of type int'],
  ['{{len nil}}', {}, 1, 3, 'len of nil'],
  ['{{len}}', {}, 1, 3, 'wrong number of args for len: want 1 got 0'],
  ['{{not 1 2}}', {}, 1, 3, 'wrong number of args for not: want 1 got 2'],
  ['{{and}}', {}, 1, 3, 'wrong number of args for and: want at least 1 got 0'],
  ['{{printf 1}}', {}, 1, 3, 'wrong type for value; expected string; got int'],
  ['\n\n  {{range .S}}{{end}}', { S: 'abc' }, 3, 3, "range can't iterate over abc"],
  ['{{range $i, $v := 3}}{{end}}', {}, 1, 1, "can't use 3 to iterate over more than one variable"],
  ['{{slice .L 2 1}}', { L: [1, 2] }, 1, 3, 'invalid slice index: 2 > 1'],
  ['{{slice .L 0 3}}', { L: [1, 2] }, 1, 3, 'index out of range: 3'],
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

test('field access through nil yields no value, but not through other scalars', (t) => {
  t.is(compileTemplate('{{.A.B.C}}').render({ A: null }), '<no value>');
  t.is(compileTemplate('{{.A.B}}').render({ A: undefined }), '<no value>');
  t.throws(() => compileTemplate('{{.A.B}}').render({ A: 1 }), { instanceOf: TemplateError });
  t.throws(() => compileTemplate('{{.A.B}}').render({ A: true }), { instanceOf: TemplateError });
});
