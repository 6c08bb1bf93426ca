import test from 'ava';
import { TEMPLATE_LIMITS, TemplateError, compileTemplate, lenientKeys } from '../../src/webhooks/template/index.ts';

/** Runs `fn`, expecting a TemplateError within `ms` milliseconds; returns it. */
function failsFast(t: { true(v: boolean, m?: string): void }, fn: () => unknown, ms = 10_000): TemplateError {
  const start = performance.now();
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  const elapsed = performance.now() - start;
  t.true(caught instanceof TemplateError, `expected TemplateError, got ${String(caught)}`);
  t.true(elapsed < ms, `took ${elapsed.toFixed(0)} ms`);
  return caught as TemplateError;
}

const render = (src: string, data: unknown) => compileTemplate(src).render(data);

test('the prototype chain is unreachable', (t) => {
  const data = { Name: 'x', Tags: ['a'], Obj: { a: 1 } };
  for (const src of [
    '{{.constructor}}',
    '{{.__proto__}}',
    '{{.toString}}',
    '{{.hasOwnProperty}}',
    '{{.valueOf}}',
    '{{.constructor.constructor}}',
    '{{$.constructor.name}}',
    '{{.Obj.__proto__}}',
    '{{.Tags.length}}',
    '{{.Tags.constructor}}',
    '{{.Name.length}}',
    '{{with .Obj}}{{.constructor}}{{end}}',
  ]) {
    const err = t.throws(() => render(src, data), { instanceOf: TemplateError }, src);
    t.regex(err!.message, /can't evaluate field/, src);
  }
  // index reads an object like a Go map: a missing key is nil, inherited ones included.
  t.is(
    render('{{index . "constructor"}}|{{index . "__proto__"}}|{{index . "toString"}}', data),
    '<no value>|<no value>|<no value>',
  );
  // Lenient objects return nil for inherited names too, never the inherited value.
  t.is(render('{{.constructor}}', { [lenientKeys]: true }), '<no value>');
});

test('functions in the data are never called or exposed', (t) => {
  let called = 0;
  const fn = () => {
    called++;
    return 'pwned';
  };
  const data = { F: fn, Arr: [fn], Obj: { f: fn } };
  for (const src of [
    '{{.F}}',
    '{{.F 1}}',
    '{{index .Arr 0}}',
    '{{index .Obj "f"}}',
    '{{.Obj}}',
    '{{range .Arr}}{{.}}{{end}}',
    '{{range .Obj}}{{end}}',
    '{{json .Obj}}',
    '{{print .Arr}}',
    '{{len .Obj}}',
    '{{printf "%v" .Obj}}',
  ]) {
    t.throws(() => render(src, data), { instanceOf: TemplateError }, src);
  }
  t.is(called, 0);
});

test('getters are not invoked', (t) => {
  let called = 0;
  const data = Object.defineProperty({ A: 1 }, 'G', {
    enumerable: true,
    get() {
      called++;
      return 'secret';
    },
  });
  t.throws(() => render('{{.G}}', data), { instanceOf: TemplateError });
  t.is(render('{{range $k, $v := .}}{{$k}}{{end}}', data), 'A');
  t.is(render('{{json .}}', data), '{"A":1}');
  t.is(called, 0);
});

test('non-enumerable and symbol-keyed properties are hidden', (t) => {
  const data = Object.defineProperty({ A: 1 }, 'Hidden', { value: 'h', enumerable: false });
  t.throws(() => render('{{.Hidden}}', data), { instanceOf: TemplateError });
  t.is(render('{{.}} {{len .}}', data), 'map[A:1] 1');
});

test('an own "__proto__" key from parsed JSON is ordinary data', (t) => {
  t.is(render('{{.__proto__.x}}', JSON.parse('{"__proto__": {"x": 1}}')), '1');
});

test('lenient objects read missing keys as nil; others fail', (t) => {
  const Changes = { Title: 'new', [lenientKeys]: true };
  t.is(
    render('{{.Changes.Title}}|{{.Changes.Tags}}|{{with .Changes.Tags}}x{{else}}none{{end}}', { Changes }),
    'new|<no value>|none',
  );
  t.is(render('{{json .Changes}}', { Changes }), '{"Title":"new"}');
  t.throws(() => render('{{.Changes.Tags}}', { Changes: { Title: 'new' } }), { instanceOf: TemplateError });
});

test('10,000 nested ifs fail at compile time, quickly', (t) => {
  // 10,000 levels cannot fit in 64 KiB, so the size check stops them first ...
  const src = '{{if 1}}'.repeat(10_000) + 'x' + '{{end}}'.repeat(10_000);
  failsFast(t, () => compileTemplate(src));
  // ... and the depth check stops whatever nesting does fit.
  const err = failsFast(t, () => compileTemplate('{{if 1}}'.repeat(8000)));
  t.regex(err.message, /nesting too deep \(more than 100 levels\)/);
  t.deepEqual([err.line, err.column], [1, TEMPLATE_LIMITS.maxDepth * 8 + 1]);
  const balanced = '{{if 1}}'.repeat(4000) + '{{end}}'.repeat(4000);
  t.true(balanced.length < TEMPLATE_LIMITS.maxSourceBytes);
  t.regex(failsFast(t, () => compileTemplate(balanced)).message, /nesting too deep/);
});

test('deeply nested parentheses and ranges fail at parse time', (t) => {
  failsFast(t, () => compileTemplate('{{' + '('.repeat(5000) + '1' + ')'.repeat(5000) + '}}'));
  failsFast(t, () => compileTemplate('{{range .}}'.repeat(5000) + '{{end}}'.repeat(5000)));
  // Nesting just within the limit is fine.
  const ok = '{{if true}}'.repeat(TEMPLATE_LIMITS.maxDepth) + 'deep' + '{{end}}'.repeat(TEMPLATE_LIMITS.maxDepth);
  t.is(compileTemplate(ok).render({}), 'deep');
});

test('a long else-if chain costs no nesting depth', (t) => {
  const src =
    '{{if eq . 0}}0' + Array.from({ length: 500 }, (_, i) => `{{else if eq . ${i + 1}}}${i + 1}`).join('') + '{{end}}';
  t.is(compileTemplate(src).render(499), '499');
});

test('nested ranges totalling 1e9 iterations fail quickly', (t) => {
  const L = Array.from({ length: 1000 }, (_, i) => i);
  const err = failsFast(t, () => render('{{range .L}}{{range $.L}}{{range $.L}}{{end}}{{end}}{{end}}', { L }));
  t.regex(err.message, /range iterations exceed 100000/);
  t.deepEqual([err.line, err.column], [1, 26]); // the innermost {{range}}
  failsFast(t, () => render('{{range .L}}{{range $.L}}{{range $.L}}{{.}}{{end}}{{end}}{{end}}', { L }));
  failsFast(t, () => render('{{range 1000000000}}{{end}}', {}));
});

test('output explosion fails cleanly', (t) => {
  const L = Array.from({ length: 300 }, (_, i) => i);
  const err = failsFast(t, () =>
    render('{{range .L}}{{range $.L}}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{end}}{{end}}', { L }),
  );
  t.regex(err.message, /output exceeds 262144 bytes/);
  t.is(err.line, 1);
  // Exactly at the limit is allowed.
  t.is(
    render('{{range .L}}{{.}}{{end}}', { L: ['x'.repeat(TEMPLATE_LIMITS.maxOutputBytes)] }).length,
    TEMPLATE_LIMITS.maxOutputBytes,
  );
});

test('strings cannot grow without bound in variables', (t) => {
  const L = Array.from({ length: 100 }, (_, i) => i);
  const err = failsFast(t, () =>
    render('{{$s := "xxxxxxxxxx"}}{{range .L}}{{$s = printf "%s%s" $s $s}}{{end}}{{len $s}}', { L }),
  );
  t.regex(err.message, /too large/);
  failsFast(t, () => render('{{$s := "x"}}{{range .L}}{{$s = print $s $s $s $s}}{{end}}', { L }));
  failsFast(t, () => render('{{printf "%1000000d" 1}}', {}));
  t.is(render('{{printf "%99999999d" 1}}', {}), '%!(BADWIDTH)1');
});

test('evaluation steps are bounded even without output or long loops', (t) => {
  const L = Array.from({ length: 90_000 }, (_, i) => i);
  const err = failsFast(t, () =>
    render('{{range .L}}{{$x := and 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1}}{{end}}', { L }),
  );
  t.regex(err.message, /evaluation steps/);
  // Repeatedly encoding a large value is paid for by the size of what it produces.
  const big = { s: 'x'.repeat(200_000) };
  failsFast(t, () => render('{{range .L}}{{$j := json $.big}}{{end}}', { L, big }), 20_000);
});

test('cyclic and very deep data fail cleanly', (t) => {
  const a: Record<string, unknown> = { name: 'a' };
  a.self = a;
  failsFast(t, () => render('{{json .}}', a));
  failsFast(t, () => render('{{.}}', a));
  failsFast(t, () => render('{{print .}}', a));
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = [deep];
  failsFast(t, () => render('{{json .}}', deep));
  failsFast(t, () => render('{{.}}', deep));
  // Reading deep data field by field is fine.
  t.is(render('{{.self.self.self.name}}', a), 'a');
});

test('sources above 64 KiB are rejected at compile time', (t) => {
  const err = t.throws(() => compileTemplate('x'.repeat(TEMPLATE_LIMITS.maxSourceBytes + 1)), {
    instanceOf: TemplateError,
  });
  t.regex(err!.message, /larger than 65536 bytes/);
  t.is(compileTemplate('x'.repeat(TEMPLATE_LIMITS.maxSourceBytes)).render({}).length, TEMPLATE_LIMITS.maxSourceBytes);
  // Bytes, not characters.
  t.throws(() => compileTemplate('é'.repeat(TEMPLATE_LIMITS.maxSourceBytes / 2 + 1)), { instanceOf: TemplateError });
});

test('limits are as documented', (t) => {
  t.like(TEMPLATE_LIMITS, { maxSourceBytes: 65536, maxOutputBytes: 262144 });
  t.true(TEMPLATE_LIMITS.maxRangeIterations > 0 && TEMPLATE_LIMITS.maxDepth > 0);
  t.true(Object.isFrozen(TEMPLATE_LIMITS));
});
