import test from 'ava';
import { buildEventData, DEFAULT_TEMPLATE, type EventFacts } from '../../src/webhooks/event-data.ts';
import { checkRenderedBody, renderBody } from '../../src/webhooks/service.ts';
import { compileTemplate, fromBytes, TemplateError } from '../../lib/go-template/index.ts';

const post: EventFacts['post'] = {
  seq: 5,
  id: '01890a5d-ac96-774b-bcce-b302099a8057',
  ext: 'jpg',
  text: 'after',
  rating: 'violent',
  createdAt: '2024-05-01T10:20:30.100Z',
  uploaderId: null,
  uploaderName: null,
  tags: [{ name: 'b' }, { name: 'a' }],
};
const facts = (over: Partial<EventFacts> = {}): EventFacts => ({
  event: 'create',
  post,
  initiator: { id: 3, name: 'carol' },
  mediaUrl: 'https://cdn.test/m',
  ...over,
});
const render = (src: string, f: EventFacts) => fromBytes(compileTemplate(src).render(buildEventData(f).value));

test('default template on create: no changes key, a legacy post without uploader leaves it out (a nil *User with omitempty), violet, Go time format', (t) => {
  t.is(
    render(DEFAULT_TEMPLATE, facts()),
    '{"event": "create", "data": {"imageID":5,"text":"after","rating":"violet","tags":["a","b"],"imageURL":"https://cdn.test/m/01890a5d-ac96-774b-bcce-b302099a8057.jpg",' +
      '"createdAt":"2024-05-01T10:20:30.1Z"}, "initiator": {"id":3,"username":"carol"}}',
  );
  // No initiator: json of the nil *User is null, as the original's template data gave it.
  t.regex(render(DEFAULT_TEMPLATE, facts({ initiator: null })), /"initiator": null\}$/);
});

test('Changes: only what changed, tags as sorted sets, empty (but set) when nothing did', (t) => {
  const upd = (previous: EventFacts['previous']) => facts({ event: 'update', previous });
  t.is(
    render('{{json .Changes}}', upd({ text: 'before', rating: 'violent', tags: ['a', 'b'] })),
    '{"text":{"old":"before","new":"after"}}',
  );
  t.is(
    render('{{json .Changes}}', upd({ text: 'after', rating: 'none', tags: ['b', 'a'] })),
    '{"rating":{"old":"none","new":"violet"}}',
  );
  t.is(
    render('{{json .Data.Changes}}', upd({ text: 'after', rating: 'violent', tags: ['c', 'a'] })),
    '{"tags":{"old":["a","c"],"new":["a","b"]}}',
  );
  const none = upd({ text: 'after', rating: 'violent', tags: ['b', 'a', 'a'] });
  // Changes is a pointer to the map, as in the original: set on every update, so `if` is true even
  // when the map is empty; `len` tells.
  t.is(render('{{json .Changes}}|{{if .Changes}}yes{{else}}no{{end}}|{{len .Changes}}', none), '{}|yes|0');
  t.regex(render('{{json .Data}}', none), /,"changes":\{\}\}$/);
  // Reading a key that is not there is empty, not an error, with or without a guard.
  t.is(
    render('[{{.Changes.text}}][{{.Changes.text.Old}}][{{with .Changes.tags}}x{{end}}]', none),
    '[<no value>][<no value>][]',
  );
  t.is(
    render('{{range $k, $v := .Changes}}{{$k}}={{json $v.Old}};{{end}}', upd({ text: 'x', rating: 'none', tags: [] })),
    'rating="none";tags=[];text="x";',
  );
});

test('field access: Data fields at the root too; unknown fields are errors with a position', (t) => {
  const f = facts({ event: 'delete', post: { ...post, uploaderId: 9, uploaderName: 'dave' } });
  t.is(
    render(
      '{{.Data.ImageID}} {{.ImageID}} {{.Uploader.Username}} {{.Data.Uploader.ID}} {{.Event}} {{.Initiator.ID}}',
      f,
    ),
    '5 5 dave 9 delete 3',
  );
  t.is(
    render('{{json .Uploader}} {{json .Tags}} {{.CreatedAt}}', f),
    '{"id":9,"username":"dave"} ["a","b"] 2024-05-01T10:20:30.1Z',
  );
  for (const src of [
    '{{.Nope}}',
    '{{.Data.Secret}}',
    '\n  {{.Initiator.Email}}',
    '{{.Uploader.constructor}}',
    '{{.Data.__proto__}}',
  ]) {
    const err = t.throws(() => render(src, f), { instanceOf: TemplateError }, src);
    t.true(err!.line >= 1 && err!.column >= 1, src);
  }
});

/**
 * renderBody checks only the size of a default body, not that it parses (service.ts): that holds
 * while DEFAULT_TEMPLATE is fixed JSON text around `json` actions alone. This pins both halves.
 */
test('the default template is fixed JSON text around json actions only, so its bodies are JSON whatever the post holds', (t) => {
  const actions = DEFAULT_TEMPLATE.match(/\{\{[^}]*\}\}/g) ?? [];
  t.true(actions.length > 0);
  for (const a of actions) t.regex(a, /^\{\{json \.[A-Za-z]+\}\}$/, a);
  t.notThrows(() => JSON.parse(DEFAULT_TEMPLATE.replace(/\{\{[^}]*\}\}/g, 'null')));

  const awkward = ['"quoted" \\ back', 'line\nbreak\ttab\u0000nul', '</script><b>x</b>', 'é ✓ 😀 \u2028\u2029', ''];
  for (const text of awkward) {
    const f = facts({
      event: 'update',
      post: { ...post, text, tags: [{ name: text || 'x' }], uploaderName: text },
      previous: { text: `${text}!`, rating: 'none', tags: [text] },
      initiator: { id: 7, name: text },
    });
    const body = renderBody(null, buildEventData(f));
    t.is(checkRenderedBody(body), undefined, JSON.stringify(text));
    t.like(JSON.parse(body), { event: 'update', data: { text }, initiator: { id: 7, username: text } });
  }
});
