/**
 * The body work of one event, each part in a plain loop (no threads, no HTTP): reading its outbox
 * row, building its template data, rendering the default body and the drain's own template
 * (bench/webhook-drain.ts), and signing one body. The drain does the first four once per event
 * and the signature once per delivery (five deliveries an event there), in the window of bodies made ahead
 * (src/webhooks/bodies-ahead.ts). CPU per call, the best of seven rounds: the figures to compare code with, on a box
 * whose other load only ever adds to them.
 *
 *   npx tsx bench/webhook-bodies-micro.ts [events, 4000]
 */
import { openDatabase } from '../src/db/sqlite.ts';
import { UserRepository } from '../src/accounts/user-repository.ts';
import { unitOfWorkOn } from '../src/kernel/unit-of-work.ts';
import { Outbox, type OutboxRow } from '../src/kernel/outbox.ts';
import { postRepositoryOn } from '../src/posts/post-tables.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { signBody } from '../src/webhooks/attempt.ts';
import { eventDataFromOutbox } from '../src/webhooks/event-data.ts';
import { renderBody } from '../src/webhooks/service.ts';
import { headerOf, numberArg, parseCli } from './lib/cli.ts';
import { tempDir } from './lib/env.ts';
import { CUSTOM_TEMPLATE, MEDIA_URL } from './webhook-drain.ts';

const { positionals } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const n = numberArg(positionals[0], 4000);

const db = openDatabase(tempDir('bodies-micro'));
const users = new UserRepository(db);
const seed = seedPosts(db, { count: n, seed: 1, users: 5 });
const posts = postRepositoryOn(db, users).list(0, n);
// The drain's events: an edit of each post, so the data carries its changes.
const ids: number[] = [];
unitOfWorkOn(db, users).writeInBackground((tx) => {
  for (const [i, p] of posts.entries())
    ids.push(tx.updated(p, { ...p, text: `drain ${i} ${p.text}`, version: p.version + 1 }, seed.users[0]).id);
});
const outbox = new Outbox(db);
const name = seed.users[0].name;
const rows: OutboxRow[] = ids.map((id) => outbox.get(id)!);
const datas = rows.map((r) => eventDataFromOutbox(r, name, MEDIA_URL));
const bodies = datas.map((d) => renderBody(null, d));

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
function time(label: string, loop: () => void): void {
  loop(); // warm-up: compiled before it counts
  let best = Infinity;
  for (let r = 0; r < 7; r++) {
    const c0 = cpuUs();
    loop();
    best = Math.min(best, cpuUs() - c0);
  }
  console.log(`${label.padEnd(24)} ${(best / n).toFixed(2)} µs`);
}

time('outbox row', () => ids.forEach((id) => outbox.get(id)));
time('template data', () => rows.forEach((r) => eventDataFromOutbox(r, name, MEDIA_URL)));
time('default body', () => datas.forEach((d) => renderBody(null, d)));
time("the drain's own template", () => datas.forEach((d) => renderBody(CUSTOM_TEMPLATE, d)));
time('signature', () => bodies.forEach((b) => signBody(b, 'drain-secret-0-0123456789abcdef')));
