/**
 * What issue 40 found different from Go's text/template, each case as Go 1.19 renders it on the
 * original's payload types (outputs taken from Go itself, test/webhooks/go-reference/); the
 * generated differential (template-differential.test.ts) covers the rest of the language.
 */
import test from 'ava';
import { sampleEventData } from '../../src/webhooks/event-data.ts';
import { renderTemplate } from '../../src/webhooks/service.ts';
import { TemplateError, fromBytes } from '../../lib/go-template/index.ts';

const REFUSED = Symbol('refused');

// [what, event, template, Go's output or REFUSED]
const CASES: [string, 'create' | 'update' | 'delete', string, string | typeof REFUSED][] = [
  [
    'html, js and urlquery are defined (html prints a struct pointer as Go: {7 alice})',
    'create',
    '{{html .Text}}|{{js .Text}}|{{urlquery .Text}}|{{html .Uploader}}|{{js 1 2}}|{{urlquery "a b&c=d/é"}}',
    'Sunset over the harbour\n&#34;golden hour&#34; &lt;3|Sunset over the harbour\\u000A\\"golden hour\\" \\u003C3|Sunset+over+the+harbour%0A%22golden+hour%22+%3C3|{7 alice}|1 2|a+b%26c%3Dd%2F%C3%A9',
  ],
  [
    'Changes is nil outside updates: json null, false, printed <nil>',
    'create',
    '{{json .Changes}}|{{if .Changes}}yes{{else}}no{{end}}|{{.Changes}}|{{printf "%v %T" .Changes .Changes}}',
    'null|no|<nil>|<nil> *webhook.Changes',
  ],
  [
    'Changes on update: a map, sorted keys in json and range',
    'update',
    '{{json .Changes}}|{{len .Changes}}|{{range $k, $v := .Changes}}{{$k}}={{$v.New}};{{end}}',
    '{"rating":{"old":"moderate","new":"violet"},"tags":{"old":["sea","sunset"],"new":["harbour","sunset"]},"text":{"old":"Sunset","new":"Sunset over the harbour\\n\\"golden hour\\" \\u003c3"}}|3|rating=violet;tags=[harbour sunset];text=Sunset over the harbour\n"golden hour" <3;',
  ],
  ['len of the nil Changes is refused', 'create', '{{len .Changes}}', REFUSED],
  ['range over the nil Changes is refused', 'delete', '{{range .Changes}}{{end}}', REFUSED],
  ['index of the nil Changes is refused', 'create', '{{index .Changes "text"}}', REFUSED],
  ['a key of the nil Changes is refused', 'create', '{{.Changes.text}}', REFUSED],
  [
    'structs print as Go prints them; print and printf see the pointer',
    'update',
    '{{.Uploader}}|{{print .Uploader}}|{{printf "%+v %#v" .Uploader .Initiator}}|{{.Changes.text}}',
    '{7 alice}|&{7 alice}|&{ID:7 Username:alice} &webhook.User{ID:7, Username:"alice"}|{Sunset Sunset over the harbour\n"golden hour" <3}',
  ],
  ['len of a struct is refused', 'update', '{{len .Uploader}}', REFUSED],
  ['index of a struct is refused', 'update', '{{index .Uploader 0}}', REFUSED],
  ['range over a struct is refused', 'update', '{{range .Uploader}}{{end}}', REFUSED],
  [
    'eq compares structs field by field and pointers by identity',
    'update',
    '{{eq .Changes.rating .Changes.rating}} {{eq .Uploader .Data.Uploader}} {{eq .Uploader .Initiator}} {{ne .Changes.text .Changes.rating}}',
    'true true false true',
  ],
  [
    'a missing map key: index gives the zero ValueChange, a field read gives no value',
    'update',
    '{{index .Changes "nope"}}|{{(index .Changes "nope").Old}}|{{.Changes.nope}}|{{json (index .Changes "nope")}}',
    '{<nil> <nil>}|<no value>|<no value>|{"old":null,"new":null}',
  ],
  [
    'CreatedAt is the ISO 8601 string (the one difference on purpose)',
    'update',
    '{{.CreatedAt}}|{{json .CreatedAt}}',
    '2024-05-01T10:20:30.123Z|"2024-05-01T10:20:30.123Z"',
  ],
  [
    'numbers have Go kinds: int64 data, int/float64/complex128 literals, exact beyond 2^53',
    'update',
    '{{printf "%s|%T|%d" .ImageID .ImageID .ImageID}}|{{printf "%d" 2.0}}|{{100000000.0}}|{{9007199254740993}}|{{0x1p4}}|{{1i}}|{{1+2i}}|{{printf "%T %T %T %T" 1 1.0 \'a\' 1i}}',
    '%!s(int64=42)|int64|42|%!d(float64=2)|1e+08|9007199254740993|16|(0+1i)|(1+2i)|int float64 int complex128',
  ],
  [
    'printf widths, precisions and flags on strings and quoted values, %O, %#U, %*d, %[n]d',
    'update',
    '{{printf "[%10.4q][%.2x][%05s][%#x][% x][%+q][%#q][%O][%#U][%*d][%[2]d]" .Text .Rating "ab" "hi" "hi" "é" "x`y" 8 0x1F600 5 42}}',
    '[    "Suns"][7669][000ab][0x6869][68 69]["\\u00e9"]["x`y"][0o10][U+1F600 \'😀\'][   42][%!d(sqlc.Rating=violet)]',
  ],
  [
    'printf on floats and integers',
    'update',
    '{{printf "%5.1f|%-8.3e|%+g|%x|%X|%b|% d|%08.3f|%#g|%v|%.0f|%6.2v" 3.14159 1234.5 1e21 255 -255 5 7 -3.14159 1.0 0.000001 2.5 3.14159}}',
    '  3.1|1.234e+03|+1e+21|ff|-FF|101| 7|-003.142|1.00000|1e-06|2|   3.1',
  ],
  [
    'printf error forms',
    'update',
    '{{printf "%!|%z|%d|%s" 1 2}}|{{printf "%d %d" 1}}|{{printf "%[3]d %[1]d" 1 2}}|{{printf "%.*d|%-*d|" 3 7 4 9}}',
    '%!!(int=1)|%!z(int=2)|%!d(MISSING)|%!s(MISSING)|1 %!d(MISSING)|%!d(BADINDEX) 1|007|9   |',
  ],
  [
    'json: map keys sorted, Data in the struct order (changes before uploader)',
    'update',
    '{{json .Changes}}|{{json .Data}}',
    '{"rating":{"old":"moderate","new":"violet"},"tags":{"old":["sea","sunset"],"new":["harbour","sunset"]},"text":{"old":"Sunset","new":"Sunset over the harbour\\n\\"golden hour\\" \\u003c3"}}|{"imageID":42,"text":"Sunset over the harbour\\n\\"golden hour\\" \\u003c3","rating":"violet","tags":["harbour","sunset"],"imageURL":"https://media.example/01890a5d-ac96-774b-bcce-b302099a8057.png","createdAt":"2024-05-01T10:20:30.123Z","changes":{"rating":{"old":"moderate","new":"violet"},"tags":{"old":["sea","sunset"],"new":["harbour","sunset"]},"text":{"old":"Sunset","new":"Sunset over the harbour\\n\\"golden hour\\" \\u003c3"}},"uploader":{"id":7,"username":"alice"}}',
  ],
  [
    'json leaves changes out on create; json of the root promotes Data fields as Go does',
    'create',
    '{{json .Data}}|{{json .}}',
    '{"imageID":42,"text":"Sunset over the harbour\\n\\"golden hour\\" \\u003c3","rating":"violet","tags":["harbour","sunset"],"imageURL":"https://media.example/01890a5d-ac96-774b-bcce-b302099a8057.png","createdAt":"2024-05-01T10:20:30.123Z","uploader":{"id":7,"username":"alice"}}|{"Event":"create","imageID":42,"text":"Sunset over the harbour\\n\\"golden hour\\" \\u003c3","rating":"violet","tags":["harbour","sunset"],"imageURL":"https://media.example/01890a5d-ac96-774b-bcce-b302099a8057.png","createdAt":"2024-05-01T10:20:30.123Z","uploader":{"id":7,"username":"alice"},"Initiator":{"id":7,"username":"alice"}}',
  ],
  [
    'define, template and block',
    'update',
    '{{define "T"}}<{{.Username}}>{{end}}{{template "T" .Uploader}}{{block "B" .Tags}}[{{range .}}{{.}},{{end}}]{{end}}{{template "B" .Changes.tags.Old}}',
    '<alice>[harbour,sunset,][sea,sunset,]',
  ],
  ['$ can be declared and assigned', 'update', '{{$ := 1}}{{$}}|{{$ = 2}}{{$}}', '1|2'],
  [
    'bytes: json escapes invalid UTF-8 as \\ufffd and <, >, & as \\u003c...; index and slice work on bytes',
    'update',
    '{{json "\\xff<&>\\u2028"}}|{{printf "%q" "\\xff"}}|{{len "日本"}}|{{index "é" 0}}|{{slice "héllo" 0 2}}|{{printf "%x" (slice "héllo" 1 2)}}',
    '"\\ufffd\\u003c\\u0026\\u003e\\u2028"|"\\xff"|6|195|h�|c3',
  ],
  [
    'json writes well-formed UTF-8 as it is but for U+2028/9, and each byte of a malformed sequence as \\ufffd',
    'update',
    '{{json "москва İstanbul"}}|{{json "a\\u2029b\\u2028"}}|{{json "\\xed\\xa0\\x80"}}|{{json "\\xc0\\x80é"}}|{{json "日本\\xf4\\x90\\x80\\x80"}}|{{json "\\xe2\\x80\\xa7\\xe2\\x80\\xaa\\xef\\xbf\\xbd\\xf0\\x9f\\x98\\x80"}}',
    '"москва İstanbul"|"a\\u2029b\\u2028"|"\\ufffd\\ufffd\\ufffd"|"\\ufffd\\ufffdé"|"日本\\ufffd\\ufffd\\ufffd\\ufffd"|"\u2027\u202a\ufffd😀"',
  ],
  [
    'slicing up to capacity beyond it is refused',
    'update',
    '{{slice .Tags 0 3}}|{{printf "%q" (slice .Changes.tags.Old 1 3)}}|{{slice .Tags 1 1 4 | len}}',
    REFUSED,
  ],
  [
    'integers at the ends of int64; json of floats',
    'update',
    '{{9223372036854775807}}|{{-9223372036854775808}}|{{printf "%x %o %b" 9223372036854775807 -8 5}}|{{json 1e21}}|{{json 1e-7}}|{{json -0.0}}',
    '9223372036854775807|-9223372036854775808|7fffffffffffffff -10 101|1e+21|1e-7|-0',
  ],
  [
    'and/or return operands; not of no value',
    'update',
    '{{and 1 0 2}}|{{or 0 "" .Text}}|{{not .Changes.zz}}|{{and .Changes .Changes.text.New}}',
    '0|Sunset over the harbour\n"golden hour" <3|true|Sunset over the harbour\n"golden hour" <3',
  ],
];

for (const [what, event, template, want] of CASES) {
  test(what, (t) => {
    const data = sampleEventData(event, 'https://media.example').value;
    if (want === REFUSED) t.throws(() => renderTemplate(template, data), { instanceOf: TemplateError });
    else t.is(fromBytes(renderTemplate(template, data)), want);
  });
}
