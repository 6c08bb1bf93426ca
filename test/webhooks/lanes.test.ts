/**
 * The dispatcher's throughput machinery (issue 16) keeps docs/decisions.md §8's guarantees: deliveries
 * claimed in lanes still go out in order and read the webhook as it is at send time; results
 * written in batches are all on record; kept-alive connections neither cost failed attempts when
 * a receiver drops them nor outlive the address policy they were opened under; a stop ends the
 * requests under way at once; https receivers are reached only with a certificate that verifies.
 * Real SQLite, real loopback receivers, the dispatcher driven directly.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { UserRepository } from '../../src/accounts/user-repository.ts';
import { openDatabase } from '../../src/db/sqlite.ts';
import { createLogger } from '../../src/log.ts';
import { KernelEvents } from '../../src/kernel/events.ts';
import { unitOfWorkOn } from '../../src/kernel/unit-of-work.ts';
import { Outbox } from '../../src/kernel/outbox.ts';
import { postRepositoryOn } from '../../src/posts/post-tables.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { WebhookRepository } from '../../src/webhook-store/webhook-repository.ts';
import { tempDir } from '../helpers/app.ts';
import { CLI_JS } from '../helpers/compiled.ts';
import { eventually, loopbackHostsName, signatureValid, startReceiver } from './receiver.ts';

function setup(t: ExecutionContext) {
  const dir = tempDir('imgpost-lanes');
  const db = openDatabase(dir);
  const seed = seedPosts(db, { count: 150, seed: 3, users: 2 });
  const posts = postRepositoryOn(db, new UserRepository(db)).list(0, 150);
  const outbox = new Outbox(db);
  const repo = new WebhookRepository(db);
  const config = { webhookAllowPrivate: true, mediaUrl: 'http://127.0.0.1:9/media' };
  const dispatcher = new WebhookDispatcher(
    { repo, outbox, log: createLogger('error'), config },
    // Lanes of 100, so a backlog of a few hundred ends and claims lanes again.
    { retryDelaysMs: [30], pollMs: 100, timeoutMs: 3000, laneSize: 100 },
  );
  const events = new KernelEvents();
  events.on('deliveries.queued', () => dispatcher.kick());
  const unitOfWork = unitOfWorkOn(db, new UserRepository(db), events);
  t.teardown(async () => {
    await dispatcher.stop();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const addHook = (url: string, template: string | null = null) =>
    repo.insertWithin(10, {
      ownerId: seed.users[0].id,
      label: null,
      url,
      secret: 'lane-secret',
      events: ['update'],
      template,
    })!;
  /** Update event number i: the post's text becomes "n<i>". */
  const update = (i: number) =>
    unitOfWork.writeInBackground((tx) => {
      const p = posts[i % posts.length];
      tx.updated(p, { ...p, text: `n${i}`, version: p.version + 1 }, seed.users[0]);
    });
  /** Another dispatcher on its own connection to the same database, as a second process would have. */
  const second = () => {
    const db2 = openDatabase(dir);
    const other = new WebhookDispatcher(
      { repo: new WebhookRepository(db2), outbox: new Outbox(db2), log: createLogger('error'), config },
      { pollMs: 20, timeoutMs: 3000, laneSize: 100 },
    );
    t.teardown(async () => {
      await other.stop();
      db2.close();
    });
    return other;
  };
  return { dir, seed, repo, dispatcher, config, addHook, update, second };
}

const textOf = (body: string): string =>
  (JSON.parse(body) as { data?: { text: string }; n?: string }).data?.text ?? (JSON.parse(body) as { n: string }).n;

test('a backlog longer than a lane reaches each webhook in order, over kept-alive connections, every result on record', async (t) => {
  const { repo, dispatcher, addHook, update } = setup(t);
  const plain = await startReceiver(200);
  const templated = await startReceiver(200);
  t.teardown(async () => {
    await plain.close();
    await templated.close();
  });
  const a = addHook(plain.url);
  const b = addHook(templated.url, '{"n": {{json .Text}}}');
  const events = 250; // more than one lane (100) per webhook
  // Not started yet: the whole backlog is queued first.
  for (let i = 0; i < events; i++) update(i);
  dispatcher.start();
  await plain.waitFor(events, 30_000);
  await templated.waitFor(events, 30_000);
  await dispatcher.whenIdle();

  const expected = Array.from({ length: events }, (_, i) => `n${i}`);
  for (const [r, hook] of [
    [plain, a],
    [templated, b],
  ] as const) {
    t.deepEqual(
      r.received.map((x) => textOf(x.body)),
      expected,
      'in event order, each once',
    );
    t.true(r.received.every((x) => signatureValid(x, 'lane-secret')));
    t.is(new Set(r.received.map((x) => x.headers['x-webhook-delivery'])).size, events);
    t.true(r.connections <= 5, `${r.connections} connections for ${events} requests`);
    t.deepEqual(repo.deliveryCounts(hook.id), { delivered: events }, 'every result written');
    t.like(repo.get(hook.id), { state: 'active', failureCount: 0, lastResponseStatus: 200 });
  }
  t.true(repo.latestAttempts(a.id).every((x) => x.outcome === 'success'));
});

test('two dispatchers on one database never send the same webhook at once: each event once, in order', async (t) => {
  const { repo, dispatcher, addHook, update, second } = setup(t);
  const receiver = await startReceiver(200);
  t.teardown(() => receiver.close());
  const hook = addHook(receiver.url);
  const other = second();
  const events = 700; // more than one lane (500): the lease has to move along and be handed over
  for (let i = 0; i < events; i++) update(i);
  other.start();
  dispatcher.start();
  await receiver.waitFor(events, 60_000);
  await dispatcher.whenIdle();
  await other.whenIdle();
  t.deepEqual(
    receiver.received.map((x) => textOf(x.body)),
    Array.from({ length: events }, (_, i) => `n${i}`),
  );
  t.is(new Set(receiver.received.map((x) => x.headers['x-webhook-delivery'])).size, events, 'no delivery sent twice');
  t.deepEqual(repo.deliveryCounts(hook.id), { delivered: events });
  t.is(dispatcher.stats.sent + other.stats.sent, events);
});

test('dispatchers sharing the webhooks (one per thread) split a backlog between them, each webhook in order', async (t) => {
  const { repo, dispatcher, addHook, update, second } = setup(t);
  const receivers = await Promise.all([0, 1, 2, 3].map(() => startReceiver(200)));
  t.teardown(() => Promise.all(receivers.map((r) => r.close())));
  const hooks = receivers.map((r, i) => addHook(r.url, i % 2 ? '{"n": {{json .Text}}}' : null));
  const other = second();
  dispatcher.configure({ sharedBy: 2, shareIndex: 0 });
  other.configure({ sharedBy: 2, shareIndex: 1 });
  const events = 150;
  for (let i = 0; i < events; i++) update(i);
  dispatcher.start();
  other.start();
  await Promise.all(receivers.map((r) => r.waitFor(events, 60_000)));
  await dispatcher.whenIdle();
  await other.whenIdle();
  const expected = Array.from({ length: events }, (_, i) => `n${i}`);
  for (const [i, r] of receivers.entries()) {
    t.deepEqual(
      r.received.map((x) => textOf(x.body)),
      expected,
      'in event order, each once',
    );
    t.is(new Set(r.received.map((x) => x.headers['x-webhook-delivery'])).size, events, 'no delivery sent twice');
    t.deepEqual(repo.deliveryCounts(hooks[i].id), { delivered: events }, 'every result written');
    t.is(repo.latestAttempts(hooks[i].id, 1).length, 1);
  }
  // Each took its share (half of the four webhooks due), not the first to look all of them.
  t.is(dispatcher.stats.sent, 2 * events);
  t.is(other.stats.sent, 2 * events);
});
test("a secret or template edited while a lane is being sent applies to the lane's remaining deliveries", async (t) => {
  const { repo, dispatcher, addHook, update } = setup(t);
  const got: { body: string; signature: string }[] = [];
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks).toString(), signature: String(req.headers['x-signature']) });
      // Once the thread that makes bodies ahead is under way (below), the first and third answers
      // wait until the test has edited the webhook: the bodies after them are made ahead meanwhile,
      // with what the webhook was.
      if (warm && (got.length === 1 || got.length === 3)) held.push(() => res.writeHead(204).end());
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const hook = addHook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, '{"v": 1, "n": {{json .Text}}}');
  // Lanes of three until one is sent with a body made ahead: that thread has started.
  dispatcher.start();
  let warm = false;
  for (let i = 100; dispatcher.stats.madeAhead === 0; i += 3) {
    for (let k = i; k < i + 3; k++) update(k);
    await dispatcher.whenIdle();
  }
  got.length = 0;
  warm = true;
  for (let i = 0; i < 6; i++) update(i); // all six are claimed together, before the edits
  await eventually(() => held.length === 1);
  repo.update(hook.id, { secret: 'lane-secret-2' });
  held.shift()!();
  await eventually(() => held.length === 1);
  repo.update(hook.id, { template: '{"v": 2, "n": {{json .Text}}}' });
  held.shift()!();
  await eventually(() => got.length === 6);
  await dispatcher.whenIdle();
  t.deepEqual(
    got.map((g) => g.body),
    [
      '{"v": 1, "n": "n0"}',
      '{"v": 1, "n": "n1"}',
      '{"v": 1, "n": "n2"}',
      '{"v": 2, "n": "n3"}',
      '{"v": 2, "n": "n4"}',
      '{"v": 2, "n": "n5"}',
    ],
  );
  const sign = (body: string, secret: string) => crypto.createHmac('sha256', secret).update(body).digest('hex');
  t.deepEqual(
    got.map((g) => g.signature),
    got.map((g, i) => sign(g.body, i === 0 ? 'lane-secret' : 'lane-secret-2')),
  );
});

test('an edit from another connection and a deletion by the CLI (another process) apply to the next send of a claimed lane', async (t) => {
  const { dir, seed, repo, dispatcher, addHook, update } = setup(t);
  const bodies: string[] = [];
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString());
      // The first and third answers wait for the test's change from elsewhere.
      if (bodies.length === 1 || bodies.length === 3) held.push(() => res.writeHead(204).end());
      else res.writeHead(204).end();
    });
  });
  const answerHeld = () => held.shift()!();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const hook = addHook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, '{"v": 1, "n": {{json .Text}}}');
  for (let i = 0; i < 6; i++) update(i);
  dispatcher.start(); // all six are claimed together, before either change
  await eventually(() => held.length === 1);

  // The template edited through another connection to the database, as the server's API does while the
  // dispatcher runs on a thread of its own.
  const db2 = openDatabase(dir);
  t.teardown(() => db2.close());
  new WebhookRepository(db2).update(hook.id, { template: '{"v": 2, "n": {{json .Text}}}' });
  answerHeld();
  await eventually(() => held.length === 1);

  // The owner removed by the CLI, a process of its own: the webhook goes with the account.
  const removed = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [CLI_JS, 'user', 'remove', '--name', seed.users[0].name],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir } },
      (err, _stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    ),
  );
  t.is(removed.code, 0, removed.stderr);
  answerHeld();
  await dispatcher.whenIdle();
  t.deepEqual(bodies, ['{"v": 1, "n": "n0"}', '{"v": 2, "n": "n1"}', '{"v": 2, "n": "n2"}']);
  t.is(repo.get(hook.id), undefined);
  t.deepEqual(repo.deliveryCounts(hook.id), {});
});

/** A receiver that holds the answers `hold` picks (n counts requests from 1) until the test answers them. */
async function holdingReceiver(t: ExecutionContext, hold: (n: number) => boolean) {
  let count = 0;
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (hold(++count)) held.push(() => res.writeHead(204).end());
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received: () => count,
    held: () => held.length,
    answer: () => held.shift()!(),
  };
}

test("a webhook deleted while its delivery is answered leaves the other webhooks' results written with it intact", async (t) => {
  const { dir, seed, repo, dispatcher, addHook, update } = setup(t);
  const gone = await holdingReceiver(t, (n) => n === 1);
  const kept = await holdingReceiver(t, (n) => n === 1);
  const a = addHook(gone.url);
  const b = repo.insertWithin(10, {
    ownerId: seed.users[1].id,
    label: null,
    url: kept.url,
    secret: 'lane-secret',
    events: ['update'],
    template: null,
  })!;
  const events = 6;
  for (let i = 0; i < events; i++) update(i);
  dispatcher.start();
  await eventually(() => gone.held() === 1 && kept.held() === 1);

  // Deleted through another connection, as the server's API does while the dispatcher runs on its own thread.
  const db2 = openDatabase(dir);
  t.teardown(() => db2.close());
  t.true(new WebhookRepository(db2).delete(a.id));
  // The kept webhook's first success is in before the deleted one's, so both are written together: the
  // deleted webhook's success must not cost the other's results.
  kept.answer();
  await eventually(() => kept.received() >= 2);
  gone.answer();
  await eventually(() => kept.received() === events);
  await dispatcher.whenIdle();

  t.is(gone.received(), 1);
  t.is(repo.get(a.id), undefined);
  t.deepEqual(repo.deliveryCounts(b.id), { delivered: events });
  t.is(repo.latestAttempts(b.id).length, events);
  t.like(repo.get(b.id), { state: 'active', failureCount: 0, lastResponseStatus: 204 });
});

test('a receiver that drops every connection after answering costs no failed attempts', async (t) => {
  const { repo, dispatcher, addHook, update } = setup(t);
  const ids: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['x-webhook-delivery']));
      // Answered as if the connection stayed open, then closed: the client may already be reusing it.
      res.writeHead(204).end(() => setImmediate(() => req.socket.destroy()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const hook = addHook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const events = 60;
  for (let i = 0; i < events; i++) update(i);
  dispatcher.start();
  await eventually(() => repo.deliveryCounts(hook.id).delivered === events || dispatcher.stats.failed > 0, 30_000);
  await dispatcher.whenIdle();
  t.is(dispatcher.stats.failed, 0);
  t.deepEqual(repo.deliveryCounts(hook.id), { delivered: events });
  t.is(new Set(ids).size, events);
  t.like(repo.get(hook.id), { state: 'active', failureCount: 0 });
});

test('a response body is read to its end before the next send, so one connection serves a whole lane', async (t) => {
  const { repo, dispatcher, addHook, update } = setup(t);
  let connections = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    // Headers first, the body a moment later: the next delivery must wait for this connection.
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('accepted');
      setTimeout(() => res.end(' and done'), 5);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const hook = addHook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const events = 30;
  for (let i = 0; i < events; i++) update(i);
  dispatcher.start();
  await eventually(() => repo.deliveryCounts(hook.id).delivered === events, 30_000);
  t.is(connections, 1);
});

test('a connection kept alive while private targets were allowed is not reused once they are not', async (t) => {
  const name = loopbackHostsName();
  if (!name) {
    // Without a loopback name the refusal would come from the URL check, not the agent.
    t.log('no non-localhost loopback name in /etc/hosts; the agent-level refusal is covered in ssrf.test.ts');
    t.pass();
    return;
  }
  const { repo, dispatcher, config, addHook, update } = setup(t);
  const receiver = await startReceiver(200);
  t.teardown(() => receiver.close());
  const hook = addHook(`http://${name}:${receiver.port}/hook`);
  dispatcher.start();
  update(0);
  await receiver.waitFor(1);
  await dispatcher.whenIdle();
  t.is(receiver.connections, 1);

  config.webhookAllowPrivate = false;
  update(1);
  const attempt = (await eventually(() => repo.latestAttempts(hook.id).find((a) => a.outcome === 'failure')))!;
  t.regex(attempt.error ?? '', /^refused: .*loopback/);
  t.is(receiver.received.length, 1, 'nothing more reached the loopback receiver');
  t.is(receiver.connections, 1);
});

test('stopping ends a request under way at once and hands its delivery back unsent', async (t) => {
  const { repo, dispatcher, addHook, update } = setup(t);
  const receiver = await startReceiver('hang');
  t.teardown(() => receiver.close());
  const hook = addHook(receiver.url);
  update(0);
  dispatcher.start();
  await receiver.waitFor(1);
  const started = Date.now();
  await dispatcher.stop();
  // The dispatcher's time-out is 3 s: stop() did not wait for it.
  t.true(Date.now() - started < 1500, `stop took ${Date.now() - started} ms`);
  t.is(dispatcher.stats.failed, 0);
  t.deepEqual(repo.deliveryCounts(hook.id), { pending: 1 });
  t.deepEqual(repo.latestAttempts(hook.id), []);
});

test('an https receiver is reached only with a certificate that verifies', async (t) => {
  const { repo, dispatcher, addHook, update } = setup(t);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-tls-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A self-signed certificate for 127.0.0.1, made by openssl now: nothing this process trusts signed it.
  await promisify(execFile)('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`],
  ]);
  let requests = 0;
  const server = https.createServer(
    { key: fs.readFileSync(`${dir}/key.pem`), cert: fs.readFileSync(`${dir}/cert.pem`) },
    (req, res) => {
      requests++;
      req.resume();
      res.writeHead(200).end();
    },
  );
  server.on('tlsClientError', () => {}); // the dispatcher hangs up on our certificate
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const hook = addHook(`https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  update(0);
  dispatcher.start();
  const attempt = (await eventually(() => repo.latestAttempts(hook.id)[0]))!;
  t.is(attempt.outcome, 'failure');
  t.regex(attempt.error ?? '', /self-signed certificate/);
  t.is(requests, 0);
});
