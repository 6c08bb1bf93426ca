import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { UserRepository } from '../../src/accounts/user-repository.ts';
import { ACCESS_KEY_PATTERN, accessKeyDigest, generateAccessKey } from '../../src/accounts/access-keys.ts';
import { dummyHash, hashPassword, verifyPassword } from '../../src/accounts/passwords.ts';
import { AccountService } from '../../src/accounts/service.ts';
import { issueCookie, loadSessionSecret, SECRET_FILE, SessionSealer } from '../../src/accounts/session-cookie.ts';
import { LoginThrottle } from '../../src/accounts/throttle.ts';
import { openDatabase } from '../../src/db/sqlite.ts';
import { AppError } from '../../src/errors.ts';
import { unitOfWorkOn } from '../../src/kernel/unit-of-work.ts';
import { postRepositoryOn } from '../../src/posts/post-tables.ts';
import { tempDir } from '../helpers/app.ts';

const SECRET = 'a'.repeat(40);

test('passwords: scrypt hash with its parameters, salted, verified in constant time', async (t) => {
  const a = await hashPassword('correct horse');
  const b = await hashPassword('correct horse');
  t.regex(a, /^scrypt\$15\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  t.not(a, b, 'a fresh salt every time');
  t.true(await verifyPassword('correct horse', a));
  t.false(await verifyPassword('correct horsE', a));
  t.false(await verifyPassword('correct horse', 'plain'));
  // Parameters that would make one login allocate gigabytes are refused, not run.
  t.false(await verifyPassword('x', a.replace('scrypt$15$', 'scrypt$30$')));
  // Cheaper parameters stored in an older hash still verify.
  const cheap = await hashPassword('pw', { log2N: 10, r: 8, p: 1 });
  t.true(await verifyPassword('pw', cheap));
  t.false(await verifyPassword('correct horse', await dummyHash()));
  t.is(await dummyHash(), await dummyHash(), 'computed once');
});

test('access keys: 43 characters of [A-Za-z0-9_], every character used, digest is sha256', (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const key = generateAccessKey();
    t.regex(key, ACCESS_KEY_PATTERN);
    for (const c of key) seen.add(c);
  }
  t.is(seen.size, 63, 'all 63 characters occur over 21,500 draws');
  t.is(accessKeyDigest('abc').toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('session cookie: round trip; tampered, truncated, wrong key, expired and junk open to null', (t) => {
  const sealer = new SessionSealer(SECRET);
  const now = Math.floor(Date.now() / 1000);
  const value = sealer.seal({ uid: 7, exp: now + 100 });
  t.regex(value, /^[\w-]+$/, 'base64url');
  t.deepEqual(sealer.open(value), { uid: 7, exp: now + 100 });
  t.not(sealer.seal({ uid: 7, exp: now + 100 }), value, 'a fresh IV every time');

  const raw = Buffer.from(value, 'base64url');
  for (let i = 0; i < raw.length; i++) {
    const changed = Buffer.from(raw);
    changed[i] ^= 0x01;
    t.is(sealer.open(changed.toString('base64url')), null, `byte ${i} changed`);
  }
  t.is(sealer.open(raw.subarray(0, raw.length - 1).toString('base64url')), null, 'truncated');
  t.is(sealer.open(value.slice(0, 20)), null, 'truncated hard');
  t.is(new SessionSealer('b'.repeat(40)).open(value), null, 'another key');
  t.is(sealer.open(sealer.seal({ uid: 7, exp: now - 1 })), null, 'expired');
  t.is(sealer.open(value, now + 100), null, 'expiry is exclusive');
  for (const junk of ['', 'x', '!!!!', 'A'.repeat(600), undefined]) t.is(sealer.open(junk), null);
});

test('issueCookie: every attribute, Max-Age = ttl - 60, Expires matches', (t) => {
  const sealer = new SessionSealer(SECRET);
  const nowMs = Date.UTC(2024, 4, 1, 12, 0, 0);
  const c = issueCookie(sealer, 3, undefined, nowMs);
  t.is(c.maxAge, 5183940);
  t.is(c.expires.getTime(), nowMs + 5183940 * 1000);
  t.is(
    c.header,
    `nmsl_cookie=${c.value}; Path=/; Expires=${c.expires.toUTCString()}; Max-Age=5183940; Secure; HttpOnly; SameSite=Lax`,
  );
  t.is(sealer.open(c.value, nowMs / 1000)?.exp, nowMs / 1000 + 60 * 24 * 3600);
  t.is(issueCookie(sealer, 3, 3600, nowMs).maxAge, 3540);
  t.is(issueCookie(sealer, 3, 5, nowMs).maxAge, 1, 'a tiny ttl still sets a cookie');
});

test('session secret: SESSION_SECRET wins; otherwise generated once, kept with mode 0600', (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  t.is(loadSessionSecret({ dataDir: dir, sessionSecret: SECRET }), SECRET);
  t.false(fs.existsSync(path.join(dir, SECRET_FILE)));
  const first = loadSessionSecret({ dataDir: dir });
  t.true(first.length >= 32);
  t.is((fs.statSync(path.join(dir, SECRET_FILE)).mode & 0o777).toString(8), '600');
  t.is(loadSessionSecret({ dataDir: dir }), first, 'the same secret after a restart');
});

test('throttle: the 11th attempt within the window is refused with a retry time; success clears the name', (t) => {
  let now = 1_000_000;
  const throttle = new LoginThrottle({ now: () => now });
  for (let i = 0; i < 10; i++) throttle.begin('Alice', '10.0.0.1');
  const err = t.throws(() => throttle.begin('alice', '10.0.0.1'), { instanceOf: AppError });
  t.is(err?.code, 'rate_limited');
  t.is(err?.retryAfter, 900);
  // The same name from elsewhere is not blocked, and its success clears the name's counter.
  throttle.succeeded(throttle.begin('alice', '10.0.0.2'));
  // Still blocked from the first address: that pair's failures were an attacker's.
  t.throws(() => throttle.begin('alice', '10.0.0.1'));
  now += 15 * 60 * 1000 + 1;
  t.notThrows(() => throttle.begin('alice', '10.0.0.1'), 'the window slides');
});

test('throttle: per address across names, per name across addresses, bounded memory', (t) => {
  const throttle = new LoginThrottle({ perAddress: 5, perUsername: 5, perPair: 100, maxEntries: 50 });
  for (let i = 0; i < 5; i++) throttle.begin(`user${i}`, '10.0.0.9');
  t.throws(() => throttle.begin('someone', '10.0.0.9'), { message: /too many/ });
  for (let i = 0; i < 5; i++) throttle.begin('victim', `10.1.0.${i}`);
  t.throws(() => throttle.begin('victim', '10.2.0.1'));
  for (let i = 0; i < 500; i++) throttle.begin(`n${i}`, `10.3.${i >> 8}.${i & 255}`);
  const size = throttle.size;
  t.true(size.pairs <= 50 && size.addresses <= 50 && size.usernames <= 50);
});

test('remove: posts become disowned, each gets a new version and a reindex outbox row, in one transaction', async (t) => {
  const dir = tempDir();
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const posts = postRepositoryOn(db, new UserRepository(db));
  const accounts = new AccountService({ db, posts, unitOfWork: unitOfWorkOn(db, new UserRepository(db)) });
  const owner = await accounts.createUser({ name: 'owner', password: 'password1' });
  const other = await accounts.createUser({ name: 'other', password: 'password1' });
  const insert = (uploaderId: number) =>
    posts.insert({
      id: crypto.randomUUID(),
      text: '',
      rating: 'none',
      ext: 'png',
      mime: 'image/png',
      width: 1,
      height: 1,
      hash: '0'.repeat(64),
      uploaderId,
      createdAt: new Date().toISOString(),
      tags: ['t'],
    });
  const mine = [insert(owner.id), insert(owner.id)];
  const theirs = insert(other.id);

  t.deepEqual(accounts.remove('OWNER'), { id: owner.id, name: 'owner', disownedPosts: 2 });
  t.is(accounts.users.getByName('owner'), undefined);
  for (const seq of mine) {
    const post = posts.getBySeq(seq)!;
    t.is(post.uploaderId, null);
    t.is(post.version, 2);
  }
  t.is(posts.getBySeq(theirs)!.version, 1);
  const rows = db.prepare('SELECT event, post_version, initiator_id, payload FROM outbox ORDER BY id').all() as {
    event: string;
    post_version: number;
    initiator_id: number | null;
    payload: string;
  }[];
  t.is(rows.length, 2);
  for (const row of rows) {
    t.like(row, { event: 'reindex', post_version: 2, initiator_id: null });
    t.like(JSON.parse(row.payload).post, { uploaderId: null, uploaderName: null, version: 2 });
  }
  t.throws(() => accounts.remove('owner'), { message: /no user/ });
});

test('createUser: validation, unique names without regard to case, Self without passwordHash', async (t) => {
  const dir = tempDir();
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const accounts = new AccountService({
    db,
    posts: postRepositoryOn(db, new UserRepository(db)),
    unitOfWork: unitOfWorkOn(db, new UserRepository(db)),
  });
  const self = await accounts.createUser({ name: 'Carol_9', password: '12345678', email: 'c@example.org' });
  t.deepEqual(Object.keys(self).sort(), ['accessKey', 'createdAt', 'email', 'id', 'name', 'permission']);
  t.like(self, { name: 'Carol_9', permission: 0x4006, email: 'c@example.org' });
  await t.throwsAsync(accounts.createUser({ name: 'carol_9', password: '12345678' }), { message: /already taken/ });
  await t.throwsAsync(accounts.createUser({ name: 'abc', password: '12345678' }), { message: /name must be/ });
  await t.throwsAsync(accounts.createUser({ name: 'has space', password: '12345678' }), { message: /name must be/ });
  await t.throwsAsync(accounts.createUser({ name: 'dave', password: '1234567' }), { message: /at least 8/ });
  await t.throwsAsync(accounts.createUser({ name: 'dave', password: '12345678', permission: 0x10000 }), {
    message: /permission/,
  });
  await t.throwsAsync(accounts.createUser({ name: 'dave', password: '12345678', email: 'nope' }), { message: /email/ });
  t.is(accounts.list().length, 1);
  t.deepEqual(accounts.authenticateKey(self.accessKey), { id: self.id, name: 'Carol_9', permission: 0x4006 });
  t.is(accounts.authenticateKey(self.accessKey.slice(0, -1) + (self.accessKey.endsWith('A') ? 'B' : 'A')), undefined);
});
