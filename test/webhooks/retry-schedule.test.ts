/** WebhookRepository.nextRetryAt: right answer, and an index lookup however large the backlog is. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { migrate } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/db/sqlite.ts';
import { NEXT_RETRY_SQL, WebhookRepository } from '../../src/webhook-store/webhook-repository.ts';

test('the earliest retry of an active webhook, found through the retry index', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-retry-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  migrate(db);
  const now = new Date().toISOString();
  db.prepare(
    `INSERT INTO users (id, name, password_hash, access_key, access_key_digest, permission, created_at) VALUES (1, 'owner', 'x', 'k', x'00', 6, ?)`,
  ).run(now);
  db.prepare(
    `INSERT INTO outbox (event, post_id, post_version, payload, created_at) VALUES ('create', 'p', 1, '{}', ?)`,
  ).run(now);
  const hook = db.prepare(
    `INSERT INTO webhooks (id, owner_id, url, secret, events, state, created_at, updated_at) VALUES (?, 1, 'http://example.com/', 's', '[]', ?, ?, ?)`,
  );
  hook.run('active', 'active', now, now);
  hook.run('suspended', 'suspended', now, now);
  const delivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, outbox_id, created_at, next_attempt_at) VALUES (?, ?, 1, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < 5000; i++) delivery.run(`d${i}`, i % 2 ? 'active' : 'suspended', now, null);
  })();
  const repo = new WebhookRepository(db);
  t.is(repo.nextRetryAt(), undefined, 'nothing scheduled');

  delivery.run('late', 'active', now, '2031-01-01T00:00:00.000Z');
  delivery.run('soon', 'active', now, '2030-01-01T00:00:00.000Z');
  delivery.run('soonest-but-suspended', 'suspended', now, '2029-01-01T00:00:00.000Z');
  t.is(repo.nextRetryAt(), Date.parse('2030-01-01T00:00:00.000Z'));
  db.prepare(`UPDATE webhook_deliveries SET status = 'delivered' WHERE id = 'soon'`).run();
  t.is(repo.nextRetryAt(), Date.parse('2031-01-01T00:00:00.000Z'), 'finished deliveries do not count');

  // Asked after every send: it must not read the whole backlog of pending deliveries.
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${NEXT_RETRY_SQL}`).all() as { detail: string }[];
  t.true(
    plan.some((p) => /USING INDEX webhook_deliveries_retry/.test(p.detail)),
    JSON.stringify(plan),
  );
});
