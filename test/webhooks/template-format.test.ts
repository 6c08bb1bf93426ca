import test from 'ava';
import { TemplateError, compileTemplate, encodeGoJSON, toGoJSON } from '../../src/webhooks/template/index.ts';

const render = (src: string, data: unknown = {}) => compileTemplate(src).render(data);

// [format and arguments, what Go's fmt.Sprintf produces]
const PRINTF: [string, string][] = [
  ['"%s" "x"', 'x'],
  ['"%d" 42', '42'],
  ['"%v|%v|%v" 1.5 true "s"', '1.5|true|s'],
  ['"%q" "a\\"b\\n"', '"a\\"b\\n"'],
  ['"%q" "é\\u00a0\\x01"', '"é\\u00a0\\x01"'],
  ['"%t %t" true false', 'true false'],
  ['"%f" 3.14159', '3.141590'],
  ['"%.2f" 3.14159', '3.14'],
  ['"%.0f %.0f %.0f" 0.5 1.5 2.5', '0 2 2'], // round half to even
  ['"%.1f %.2f" 0.25 1.005', '0.2 1.00'], // exact binary values, not the decimal literals
  ['"%6.2f|%-8.3f|%08.3f|%+.1f" 3.14159 2.5 3.14159 2.0', '  3.14|2.500   |0003.142|+2.0'],
  ['"%05.1f" -2.5', '-02.5'],
  ['"%e|%.2e|%E" 123456.789 0.000123 1.0', '1.234568e+05|1.23e-04|1.000000E+00'],
  ['"%g|%g|%g|%.3g" 0.000012 1234567.0 100.25 1234.0', '1.2e-05|1.234567e+06|100.25|1.23e+03'],
  ['"%x|%X|%x|%#x|%o|%b" 255 255 -255 255 8 5', 'ff|FF|-ff|0xff|10|101'],
  ['"%x" "hi"', '6869'],
  ['"%5d|%-5d|%05d|%+d|% d" 42 42 42 5 5', '   42|42   |00042|+5| 5'],
  ['"%.3d" 7', '007'],
  ['"%c%c|%q|%U" 72 9731 65 9731', "H☃|'A'|U+2603"],
  ['"%5s|%-5s|%.2s" "ab" "ab" "abc"', '   ab|ab   |ab'],
  ['"%%|%d%%" 50', '%|50%'],
  ['"%T %T %T %T %T %T" 1 1.5 "s" true nil .L', 'int float64 string bool <nil> []interface {}'],
  ['"%v|%s|%d|%q" .L .S .L .S', '[1 2]|[a b]|[1 2]|["a" "b"]'],
  ['"%v" .M', 'map[a:1 b:[x]]'],
  ['"%v %s" .T .T', '2024-05-06T07:08:09.5Z 2024-05-06T07:08:09.5Z'],
  // Go's error annotations for mismatched verbs and argument counts
  ['"%d" "x"', '%!d(string=x)'],
  ['"%s" 5', '%!s(int=5)'],
  ['"%d" 1.5', '%!d(float64=1.5)'],
  ['"%t" 1', '%!t(int=1)'],
  ['"%s|%v" nil nil', '%!s(<nil>)|<nil>'],
  ['"%d %d" 1', '1 %!d(MISSING)'],
  ['"%d" 1 2 "x" nil', '1%!(EXTRA int=2, string=x, <nil>)'],
  ['"%z" 1', '%!z(int=1)'],
  ['"%d" .S', '[%!d(string=a) %!d(string=b)]'],
  ['"abc%"', 'abc%!(NOVERB)'],
  ['"no verbs"', 'no verbs'],
];

const DATA = { L: [1, 2], S: ['a', 'b'], M: { b: ['x'], a: 1 }, T: new Date('2024-05-06T07:08:09.500Z') };

PRINTF.forEach(([args, want]) => {
  test(`printf ${args}`, (t) => {
    t.is(render(`{{printf ${args}}}`, DATA), want);
  });
});

test('deliberate differences from Go, where JS values cannot say what Go would know', (t) => {
  // One number type: integral values act as ints, yet the float verbs accept them (Go: %!f(int=2)),
  // and integral float literals print as ints (Go: 1e+06).
  t.is(render('{{printf "%.2f" 2}} {{1e6}} {{1.0}} {{eq 1 1.0}}'), '2.00 1000000 1 true');
  // Dates print as RFC 3339 rather than Go's time.Time String form.
  t.is(render('{{.}}', new Date('2024-05-06T07:08:09Z')), '2024-05-06T07:08:09Z');
});

test('json encodes strings as Go does', (t) => {
  const s = 'a"b\\c\n\t\r\b\f\u0001\u001f\u007f<>&\u2028\u2029é😀';
  t.is(
    render('{{json .}}', s),
    '"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\u007f\\u003c\\u003e\\u0026\\u2028\\u2029é😀"',
  );
  // Lone surrogates are invalid UTF-8; Go writes the replacement character.
  t.is(encodeGoJSON('x\ud800y\udc00'), '"x\\ufffdy\\ufffd"');
  t.is(encodeGoJSON('😀'), '"😀"');
});

test('json encodes numbers, booleans, nil and nesting as Go does', (t) => {
  const value = {
    n: [0, -3, 1.5, 0.1, 1e21, 1e-7, 123456789, 1e20],
    b: [true, false],
    z: null,
    u: [undefined],
    nested: { a: { b: [{}, []] } },
  };
  t.is(
    encodeGoJSON(value),
    '{"n":[0,-3,1.5,0.1,1e+21,1e-7,123456789,100000000000000000000],"b":[true,false],"z":null,"u":[null],"nested":{"a":{"b":[{},[]]}}}',
  );
  t.is(
    render('{{json .Missing}}|{{json nil}}|{{json 1}}|{{json "x"}}|{{json .}}', { Missing: undefined }),
    'null|null|1|"x"|{}',
  );
});

test('json keeps insertion order of keys and omits undefined values', (t) => {
  t.is(encodeGoJSON({ z: 1, a: 2, skip: undefined, m: 3 }), '{"z":1,"a":2,"m":3}');
  t.is(encodeGoJSON({ 'k"<': 1 }), '{"k\\"\\u003c":1}');
});

test('json encodes dates as RFC 3339 with trailing zeros trimmed', (t) => {
  const cases: [string, string][] = [
    ['2024-01-02T03:04:05.000Z', '"2024-01-02T03:04:05Z"'],
    ['2024-01-02T03:04:05.120Z', '"2024-01-02T03:04:05.12Z"'],
    ['2024-01-02T03:04:05.001Z', '"2024-01-02T03:04:05.001Z"'],
    ['2024-01-02T03:04:05.100Z', '"2024-01-02T03:04:05.1Z"'],
    ['0001-01-01T00:00:00Z', '"0001-01-01T00:00:00Z"'],
  ];
  for (const [iso, want] of cases) t.is(render('{{json .}}', new Date(iso)), want, iso);
  t.is(render('{{json .}}', { at: new Date('2024-01-02T03:04:05Z') }), '{"at":"2024-01-02T03:04:05Z"}');
  t.throws(() => render('{{json .}}', new Date(NaN)), { instanceOf: TemplateError });
  t.throws(() => render('{{json .}}', new Date('+012345-01-01T00:00:00Z')), { instanceOf: TemplateError });
});

test('json uses toGoJSON and omits undefined keys of its result', (t) => {
  class PostData {
    constructor(
      readonly ImageID: string,
      readonly Title: string | undefined,
      readonly CreatedAt: Date,
    ) {}
    [toGoJSON]() {
      return { imageID: this.ImageID, title: this.Title, createdAt: this.CreatedAt, tags: [] };
    }
  }
  const Data = new PostData('img1', undefined, new Date('2024-01-02T03:04:05.5Z'));
  // Templates see the Go-style fields; json sees the lower-camel form.
  t.is(render('{{.Data.ImageID}}', { Data }), 'img1');
  t.is(render('{{json .Data}}', { Data }), '{"imageID":"img1","createdAt":"2024-01-02T03:04:05.5Z","tags":[]}');
  // Nested inside other values too, and a non-enumerable own method works the same way.
  const inner = Object.defineProperty({ A: 1 }, toGoJSON, { value: () => ({ a: 1 }), enumerable: false });
  t.is(encodeGoJSON([inner, { x: inner }]), '[{"a":1},{"x":{"a":1}}]');
  // The symbol is not reachable from templates.
  t.is(render('{{range $k, $v := .}}{{$k}}{{end}}', inner), 'A');
  // A toGoJSON result that is not an object is encoded as is.
  t.is(encodeGoJSON({ [toGoJSON]: () => 'plain' }), '"plain"');
});

test('json rejects values Go cannot encode', (t) => {
  for (const v of [NaN, Infinity, () => 1]) {
    t.throws(() => render('{{json .V}}', { V: v }), { instanceOf: TemplateError });
  }
  const err = t.throws(() => render('x\n {{json .V}}', { V: NaN }), { instanceOf: TemplateError });
  t.is(err!.line, 2);
  t.regex(err!.message, /error calling json: json: unsupported value: NaN/);
});

test('json output drops into a JSON body', (t) => {
  const tpl = compileTemplate('{"event": {{json .Event}}, "data": {{json .Data}}, "initiator": {{json .Initiator}}}');
  const Data = { ImageID: 'i1', Title: 'hi', [toGoJSON]: () => ({ imageID: 'i1', title: 'hi', changes: undefined }) };
  const out = tpl.render({ Event: 'post.updated', Data, Initiator: null });
  t.is(out, '{"event": "post.updated", "data": {"imageID":"i1","title":"hi"}, "initiator": null}');
  t.deepEqual(JSON.parse(out), { event: 'post.updated', data: { imageID: 'i1', title: 'hi' }, initiator: null });
});
