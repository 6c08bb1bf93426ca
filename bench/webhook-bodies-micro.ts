/**
 * Scratch: the body work per event (outbox row, template data, two renders, five signatures), in a plain loop.
 *   npx tsx bench/webhook-bodies-micro.ts [events]
 */
import { openDatabase } from '../src/db/sqlite.ts';
import { unitOfWorkOn } from '../src/kernel/unit-of-work.ts';
import { Outbox, type OutboxRow } from '../src/kernel/outbox.ts';
import { postRepositoryOn } from '../src/posts/post-tables.ts';
import { UserRepository } from '../src/accounts/user-repository.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { signBody } from '../src/webhooks/attempt.ts';
import { eventDataFromOutbox } from '../src/webhooks/event-data.ts';
import { renderBody } from '../src/webhooks/service.ts';
import { tempDir } from './lib/env.ts';

const CUSTOM_TEMPLATE =
  '{"kind": {{json .Event}}, "id": {{.ImageID}}, "text": {{json .Text}}, "rating": {{json .Rating}}, ' +
  '"tags": [{{range $i, $t := .Tags}}{{if $i}}, {{end}}{{json $t}}{{end}}], "url": {{json .ImageURL}}' +
  '{{with .Initiator}}, "by": {{json .Username}}{{end}}{{if .Changes}}, "changes": {{json .Changes}}{{end}}}';
const MEDIA = 'http://127.0.0.1:9/media';
const n = Number(process.argv[2] ?? 4000);
const db = openDatabase(tempDir('bodies-micro'));
const users = new UserRepository(db);
const seed = seedPosts(db, { count: n, seed: 1, users: 5 });
const posts = postRepositoryOn(db, users).list(0, n);
const uow = unitOfWorkOn(db, users);
const ids: number[] = [];
uow.writeInBackground((tx) => {
  for (let i = 0; i < n; i++) {
    const p = posts[i];
    ids.push(tx.updated(p, { ...p, text: `drain ${i} ${p.text}`, version: p.version + 1 }, seed.users[0]).id);
  }
});
const outbox = new Outbox(db);
const name = seed.users[0].name;
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
function time(label: string, f: () => void, per = n) {
  for (let w = 0; w < 2; w++) f();
  let best = Infinity;
  for (let r = 0; r < 7; r++) {
    const c0 = cpu();
    f();
    best = Math.min(best, cpu() - c0);
  }
  console.log(`${label.padEnd(28)} ${(best / per).toFixed(2)} µs (best of 7)`);
}
const rows: OutboxRow[] = ids.map((id) => outbox.get(id)!);
const datas = rows.map((r) => eventDataFromOutbox(r, name, MEDIA));
time('outbox.get', () => {
  for (const id of ids) outbox.get(id);
});
time('eventDataFromOutbox', () => {
  for (const r of rows) eventDataFromOutbox(r, name, MEDIA);
});
time('render default', () => {
  for (const d of datas) renderBody(null, d);
});
time('render custom', () => {
  for (const d of datas) renderBody(CUSTOM_TEMPLATE, d);
});
const bodies = datas.map((d) => renderBody(null, d));
time('sign', () => {
  for (const b of bodies) signBody(b, 'drain-secret-0-0123456789abcdef');
});
time('JSON.parse body', () => {
  for (const b of bodies) JSON.parse(b);
});
console.log('body bytes', bodies[0].length, bodies[0].slice(0, 300));
console.log(renderBody(CUSTOM_TEMPLATE, datas[0]).slice(0, 300));
if (process.env.ONLY_RENDER) {
  const c0 = cpu();
  for (let k = 0; k < 10; k++)
    for (const d of datas) {
      renderBody(null, d);
      renderBody(CUSTOM_TEMPLATE, d);
    }
  console.log('render both x10', ((cpu() - c0) / 10 / n).toFixed(2), 'µs per event');
}
if (process.env.ONLY_DEFAULT) {
  const c0 = cpu();
  for (let k = 0; k < 20; k++) for (const d of datas) renderBody(null, d);
  console.log('render default x20', ((cpu() - c0) / 20 / n).toFixed(2), 'µs per event');
}
if (process.env.MARSHAL) {
  const { marshalJSON } = await import('../lib/go-template/index.ts');
  const { evalField } = await import('../lib/go-template/fields.ts');
  const vals = datas.map((d) => [
    evalField('Event', false, d.value),
    evalField('Data', false, d.value),
    evalField('Initiator', false, d.value),
  ]);
  time('marshal 3 fields', () => {
    for (const v of vals) for (const x of v) marshalJSON(x);
  });
  time('JSON.stringify json', () => {
    for (const d of datas) JSON.stringify(d.json);
  });
}
