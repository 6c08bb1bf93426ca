import test from 'ava';
import { buildEventData, DEFAULT_TEMPLATE, type EventFacts } from '../../src/webhooks/event-data.ts';
import { compileTemplate, TemplateError } from '../../src/webhooks/template/index.ts';

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
const render = (src: string, f: EventFacts) => compileTemplate(src).render(buildEventData(f));

test('default template on create: no changes key, legacy uploader null, violet, Go time format', (t) => {
  t.is(
    render(DEFAULT_TEMPLATE, facts()),
    '{"event": "create", "data": {"imageID":5,"text":"after","rating":"violet","tags":["a","b"],"imageURL":"https://cdn.test/m/01890a5d-ac96-774b-bcce-b302099a8057.jpg",' +
      '"createdAt":"2024-05-01T10:20:30.1Z","uploader":null}, "initiator": {"id":3,"username":"carol"}}',
  );
});

test('Changes: only what changed, tags as sorted sets, empty and falsy when nothing did', (t) => {
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
  t.is(render('{{json .Changes}}|{{if .Changes}}yes{{else}}no{{end}}|{{len .Changes}}', none), '{}|no|0');
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
