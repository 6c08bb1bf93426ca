import test from 'ava';
import { TEMPLATE_LIMITS, TemplateError, compileTemplate, fromBytes, type Value } from '../../lib/go-template/index.ts';
import { goData, goInt, goList, sample } from './go-values.ts';

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

const render = (src: string, data: Value = sample()) => fromBytes(compileTemplate(src).render(data));

test("templates reach only the payload's Go fields and map keys", (t) => {
  for (const src of [
    '{{.constructor}}',
    '{{.__proto__}}',
    '{{.toString}}',
    '{{.hasOwnProperty}}',
    '{{.constructor.constructor}}',
    '{{$.constructor.name}}',
    '{{.Tags.length}}',
    '{{.Text.length}}',
    '{{with .Uploader}}{{.constructor}}{{end}}',
    '{{.Data.__proto__}}',
  ]) {
    const err = t.throws(() => render(src), { instanceOf: TemplateError }, src);
    t.regex(err!.message, /can't evaluate field/, src);
  }
  // A map (Changes) has only its own keys: any other name is a missing key, as in Go.
  t.is(render('{{.Changes.constructor}}|{{index .Changes "__proto__"}}'), '<no value>|{<nil> <nil>}');
  t.regex(
    t.throws(() => render('{{index . "constructor"}}'))!.message,
    /can't index item of type webhook.templateFields/,
  );
});

test('call calls nothing: the data holds no functions', (t) => {
  t.regex(t.throws(() => render('{{call .Text}}'))!.message, /error calling call: non-function of type string/);
  t.regex(t.throws(() => render('{{call .Changes.zz}}'))!.message, /call of nil/);
  t.regex(t.throws(() => render('{{call .Uploader 1 2}}'))!.message, /non-function of type \*webhook.User/);
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
  t.is(render(ok), 'deep');
});

test('a long else-if chain costs no nesting depth', (t) => {
  const src =
    '{{if eq . 0}}0' + Array.from({ length: 500 }, (_, i) => `{{else if eq . ${i + 1}}}${i + 1}`).join('') + '{{end}}';
  t.is(render(src, goInt(499)), '499');
});

test('nested ranges totalling 1e9 iterations fail quickly', (t) => {
  const L = Array.from({ length: 1000 }, (_, i) => i);
  const err = failsFast(t, () => render('{{range .L}}{{range $.L}}{{range $.L}}{{end}}{{end}}{{end}}', goData({ L })));
  t.regex(err.message, /range iterations exceed 100000/);
  t.deepEqual([err.line, err.column], [1, 26]); // the innermost {{range}}
  failsFast(t, () => render('{{range .L}}{{range $.L}}{{range $.L}}{{.}}{{end}}{{end}}{{end}}', goData({ L })));
  // Go 1.19 cannot range over an integer at all.
  failsFast(t, () => render('{{range 1000000000}}{{end}}'));
});

test('output explosion fails cleanly', (t) => {
  const L = Array.from({ length: 300 }, (_, i) => i);
  const err = failsFast(t, () =>
    render('{{range .L}}{{range $.L}}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{end}}{{end}}', goData({ L })),
  );
  t.regex(err.message, /output exceeds 262144 bytes/);
  t.is(err.line, 1);
  // Exactly at the limit is allowed.
  t.is(
    render('{{range .L}}{{.}}{{end}}', goData({ L: ['x'.repeat(TEMPLATE_LIMITS.maxOutputBytes)] })).length,
    TEMPLATE_LIMITS.maxOutputBytes,
  );
});

test('strings cannot grow without bound in variables', (t) => {
  const L = Array.from({ length: 100 }, (_, i) => i);
  const err = failsFast(t, () =>
    render('{{$s := "xxxxxxxxxx"}}{{range .L}}{{$s = printf "%s%s" $s $s}}{{end}}{{len $s}}', goData({ L })),
  );
  t.regex(err.message, /too large/);
  failsFast(t, () => render('{{$s := "x"}}{{range .L}}{{$s = print $s $s $s $s}}{{end}}', goData({ L })));
  failsFast(t, () => render('{{printf "%1000000d" 1}}'));
  // An overlong width ends the format, as Go's parsenum does.
  t.is(render('{{printf "%99999999d" 1}}'), '%!(NOVERB)%!(EXTRA int=1)');
});

test('evaluation steps are bounded even without output or long loops', (t) => {
  const L = Array.from({ length: 90_000 }, (_, i) => i);
  const err = failsFast(t, () =>
    render('{{range .L}}{{$x := and 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1}}{{end}}', goData({ L })),
  );
  t.regex(err.message, /evaluation steps/);
  // Repeatedly encoding a large value is paid for by the size of what it produces.
  const big = { s: 'x'.repeat(200_000) };
  failsFast(t, () => render('{{range .L}}{{$j := json $.big}}{{end}}', goData({ L, big })), 20_000);
});

test('very deep data fails cleanly when printed or encoded, and reads fine', (t) => {
  let data = goData([1]);
  for (let i = 0; i < 10_000; i++) data = goList([data]);
  failsFast(t, () => render('{{json .}}', data));
  failsFast(t, () => render('{{.}}', data));
  failsFast(t, () => render('{{print .}}', data));
  t.is(render('{{index . 0 0 0 | len}}', data), '1');
});

test('sources above 64 KiB are rejected at compile time', (t) => {
  const err = t.throws(() => compileTemplate('x'.repeat(TEMPLATE_LIMITS.maxSourceBytes + 1)), {
    instanceOf: TemplateError,
  });
  t.regex(err!.message, /larger than 65536 bytes/);
  t.is(render('x'.repeat(TEMPLATE_LIMITS.maxSourceBytes)).length, TEMPLATE_LIMITS.maxSourceBytes);
  // Bytes, not characters.
  t.throws(() => compileTemplate('é'.repeat(TEMPLATE_LIMITS.maxSourceBytes / 2 + 1)), { instanceOf: TemplateError });
});

test('limits are as documented', (t) => {
  t.like(TEMPLATE_LIMITS, { maxSourceBytes: 65536, maxOutputBytes: 262144 });
  t.true(TEMPLATE_LIMITS.maxRangeIterations > 0 && TEMPLATE_LIMITS.maxDepth > 0);
  t.true(Object.isFrozen(TEMPLATE_LIMITS));
});
