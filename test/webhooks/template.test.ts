import test from 'ava';
import { compileTemplate, lenientKeys } from '../../src/webhooks/template/index.ts';

const render = (src: string, data: unknown = DATA) => compileTemplate(src).render(data);

const DATA = {
  Name: 'x',
  Tags: ['a', 'b', 'c'],
  Items: [{ Name: 'i0' }, { Name: 'i1' }],
  M: { b: 2, a: 1 },
  N: null,
  L: [1, 2, 3, 4, 5],
  E: [],
  User: { Name: 'ann', Email: '' },
  Nested: [['x', 'y'], ['z']],
  Changes: { Title: 'new', [lenientKeys]: true },
};

// [template, expected output] — expected values are what Go's text/template prints for DATA.
const GO_OUTPUT: [string, string][] = [
  // text, trimming and comments
  ['plain text', 'plain text'],
  ['{{23 -}} < {{- 45}}', '23<45'],
  ['a \n\t{{- 3}}', 'a3'],
  ['{{3 -}}\n\t b', '3b'],
  ['a {{- /* comment */ -}} b', 'ab'],
  ['a{{/* multi\nline */}}b', 'ab'],
  ['{{if true}}\n  yes\n{{end}}', '\n  yes\n'],
  ['{{- if true -}}\n  yes\n{{- end}}', 'yes'],
  ['{{-3}}', '-3'],
  ['{{ .Name }}-{{.Name}}', 'x-x'],
  // fields, dot, $ and variables
  ['{{.User.Name}}', 'ann'],
  ['{{with .User}}{{.Name}} {{$.Name}}{{end}}', 'ann x'],
  ['{{$u := .User}}{{$u.Name}}', 'ann'],
  ['{{$x := 1}}{{$x = 2}}{{$x}}', '2'],
  ['{{$n := 0}}{{range .L}}{{$n = .}}{{end}}{{$n}}', '5'],
  ['{{(index .Items 1).Name}}', 'i1'],
  ['{{$i := index .Items 0}}{{$i.Name}}', 'i0'],
  ['{{.N.X}}', '<no value>'],
  ['{{.N}}', '<no value>'],
  ['{{.Changes.Title}}|{{.Changes.Other}}|{{if .Changes.Other}}y{{else}}n{{end}}', 'new|<no value>|n'],
  // pipelines and literals
  ['{{.Name | printf "%s!"}}', 'x!'],
  ['{{3 | printf "%d-%d" 2}}', '2-3'],
  ['{{"hello" | len}}', '5'],
  ['{{.Tags | len | printf "%d tags"}}', '3 tags'],
  ['{{"a\\tb\\u00e9\\x41\\303\\251\\""}}', 'a\tbéAé"'],
  ['{{`raw\\n "q"`}}', 'raw\\n "q"'],
  ["{{'a'}} {{'\\n'}}", '97 10'],
  ['{{0x1F}} {{1_000}} {{-5}} {{+3}} {{017}} {{0o17}} {{0b101}}', '31 1000 -5 3 15 15 5'],
  ['{{1.5}} {{0.1}} {{1e-7}} {{12345678.9}} {{123456.5}}', '1.5 0.1 1e-07 1.23456789e+07 123456.5'],
  ['{{true}} {{false}}', 'true false'],
  ['{{print nil}}', '<nil>'],
  // if / else if / else, with / else with
  ['{{if .Name}}a{{else}}b{{end}}', 'a'],
  ['{{if .E}}a{{else if .N}}b{{else if .L}}c{{else}}d{{end}}', 'c'],
  ['{{if .E}}a{{else if .N}}b{{end}}', ''],
  ['{{with .User.Email}}has{{else}}none{{end}}', 'none'],
  ['{{with .E}}a{{else with .Tags}}{{index . 0}}{{else}}none{{end}}', 'a'],
  ['{{with $x := .N}}{{$x}}{{else}}[{{$x}}]{{end}}', '[<no value>]'],
  ['{{if $v := .Name}}{{$v}}{{end}}', 'x'],
  // range
  ['{{range .Tags}}{{.}},{{end}}', 'a,b,c,'],
  ['{{range $i, $v := .Tags}}{{$i}}={{$v}} {{end}}', '0=a 1=b 2=c '],
  ['{{range $v := .Tags}}{{$v}}{{end}}', 'abc'],
  ['{{range $k, $v := .M}}{{$k}}={{$v}};{{end}}', 'a=1;b=2;'],
  ['{{range .M}}{{.}}{{end}}', '12'],
  ['{{range .E}}x{{else}}empty{{end}}', 'empty'],
  ['{{range .N}}x{{else}}nil{{end}}', 'nil'],
  ['{{range .Tags}}{{$.Name}}{{.}} {{end}}', 'xa xb xc '],
  ['{{range .Nested}}[{{range .}}{{.}}{{end}}]{{end}}', '[xy][z]'],
  ['{{range .L}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}', '12'],
  ['{{range .L}}{{if eq . 3}}{{continue}}{{end}}{{.}}{{end}}', '1245'],
  ['{{range 3}}{{.}}{{end}}', '012'],
  ['{{range $i := 2}}{{$i}}{{end}}', '01'],
  ['{{range $i, $t := .Tags}}{{if $i}}, {{end}}{{$t}}{{end}}', 'a, b, c'],
  // truthiness
  ['{{if 0}}T{{else}}F{{end}}{{if ""}}T{{else}}F{{end}}{{if .E}}T{{else}}F{{end}}{{if .N}}T{{else}}F{{end}}', 'FFFF'],
  ['{{if 1}}T{{else}}F{{end}}{{if "0"}}T{{else}}F{{end}}{{if .L}}T{{else}}F{{end}}{{if .M}}T{{else}}F{{end}}', 'TTTT'],
  // comparison and logic
  ['{{eq 1 1}} {{eq "a" "b" "a"}} {{eq .N nil}} {{eq 1 .N}} {{ne 1 2}}', 'true true true false true'],
  ['{{lt 1 2}} {{le 2 2}} {{gt "b" "a"}} {{ge 1 2}} {{lt "a" "ab"}}', 'true true true false true'],
  ['{{and 1 0 2}} {{and 1 2}} {{or 0 "" "x"}} [{{or 0 ""}}] {{not 0}} {{not .Tags}}', '0 2 x [] true false'],
  ['{{or 1 .Missing}} {{and 0 (index .Tags 10)}}', '1 0'], // short-circuit: never evaluated
  ['{{if and .Name (not .E)}}ok{{end}}', 'ok'],
  ['{{.Name | eq "x"}}', 'true'],
  // len, index, slice
  ['{{len "héllo"}} {{len .Tags}} {{len .M}} {{len .E}}', '6 3 2 0'],
  [
    '{{index .Tags 1}} {{index .M "b"}} {{index .Nested 0 1}} {{index .M "zz"}} {{index "abc" 1}}',
    'b 2 y <no value> 98',
  ],
  ['{{slice "hello" 1 3}} {{slice .L 3}} {{slice .L 1 2}} {{slice .L}}', 'el [4 5] [2] [1 2 3 4 5]'],
  // print, println
  ['{{print "a" 1 2 "b" 3.5 true}}', 'a1 2b3.5 true'],
  ['{{print 1 2 "a" 3 "b" "c" nil}}', '1 2a3bc<nil>'],
  ['{{println 1 "a"}}|', '1 a\n|'],
  // printing values
  ['{{.Tags}} {{.L}} {{.E}} {{.Nested}}', '[a b c] [1 2 3 4 5] [] [[x y] [z]]'],
  ['{{.M}} {{.User}}', 'map[a:1 b:2] map[Email: Name:ann]'],
  ['{{.Items}}', '[map[Name:i0] map[Name:i1]]'],
];

GO_OUTPUT.forEach(([src, want], i) => {
  test(`go output #${i}: ${JSON.stringify(src)}`, (t) => {
    t.is(render(src), want);
  });
});

test('prints values like Go', (t) => {
  const cases: [unknown, string][] = [
    [3, '3'],
    [-0.5, '-0.5'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e21, '1e+21'],
    [1e20, '100000000000000000000'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [true, 'true'],
    [null, '<no value>'],
    [undefined, '<no value>'],
    ['s', 's'],
    [[null, 1.5, 'a b'], '[<nil> 1.5 a b]'],
    [{}, 'map[]'],
    [{ z: [1], a: { y: null } }, 'map[a:map[y:<nil>] z:[1]]'],
    [new Date('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05Z'],
    [new Date('2024-01-02T03:04:05.250Z'), '2024-01-02T03:04:05.25Z'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
  ];
  const tpl = compileTemplate('{{.}}');
  for (const [value, want] of cases) t.is(tpl.render(value), want, String(value));
});

test('dot is the data at the top level; $ stays the root inside with and range', (t) => {
  t.is(render('{{.}}', 'hi'), 'hi');
  t.is(render('{{with .a}}{{range .}}{{.}}{{$.b}}{{end}}{{end}}', { a: [1, 2], b: '!' }), '1!2!');
});

test('variables declared in a range body are fresh each iteration', (t) => {
  t.is(render('{{range .L}}{{$x := .}}{{$x}}{{end}}'), '12345');
});

test('a compiled template renders many times with different data', (t) => {
  const tpl = compileTemplate('Hello {{.Name}}');
  t.is(tpl.render({ Name: 'a' }), 'Hello a');
  t.is(tpl.render({ Name: 'b' }), 'Hello b');
});

test('the webhook body template renders valid JSON', (t) => {
  const tpl = compileTemplate('{"event": {{json .Event}}, "data": {{json .Data}}, "initiator": {{json .Initiator}}}');
  const out = tpl.render({
    Event: 'post.created',
    Data: { id: 'p1', tags: ['a'] },
    Initiator: { id: 'u1', name: '<b>' },
  });
  t.is(
    out,
    '{"event": "post.created", "data": {"id":"p1","tags":["a"]}, "initiator": {"id":"u1","name":"\\u003cb\\u003e"}}',
  );
  t.deepEqual(JSON.parse(out).initiator, { id: 'u1', name: '<b>' });
});
