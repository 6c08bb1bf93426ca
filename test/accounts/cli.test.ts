import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { UserRepository } from '../../src/accounts/user-repository.ts';
import { AccountService } from '../../src/accounts/service.ts';
import { openDatabase } from '../../src/db/sqlite.ts';
import { unitOfWorkOn } from '../../src/kernel/unit-of-work.ts';
import { PasskeyRepository } from '../../src/passkeys/repository.ts';
import { postRepositoryOn } from '../../src/posts/post-tables.ts';
import { tempDir } from '../helpers/app.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// tsx's own binary rather than `npx tsx`, so npm's notices do not mix into stderr.
const SELF_KEYS = ['accessKey', 'createdAt', 'email', 'id', 'name', 'permission'];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function imgpost(dataDir: string, ...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    // The compiled CLI on this very node, as test/cli/run-cli.ts runs it (test/helpers/compiled.ts).
    execFile(
      process.execPath,
      [CLI_JS, ...args],
      // A data dir of its own; no Elasticsearch settings at all: user commands must not need it.
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function withDataDir(t: { teardown(fn: () => void): void }): string {
  const dir = tempDir('imgpost-cli');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('user add with a bad name or a short password: exit 1, one clear line, nothing created', async (t) => {
  const dir = withDataDir(t);
  for (const [args, message] of [
    [['--name', 'ab', '--password', 'long enough'], /name must be 4 to 32 letters, digits or underscores/],
    [['--name', 'bad-name!', '--password', 'long enough'], /name must be/],
    [['--name', 'good_name', '--password', 'short'], /password must have at least 8 characters/],
    [['--name', 'good_name', '--password', 'long enough', '--permission', '0x10000'], /permission/],
  ] as const) {
    const r = await imgpost(dir, 'user', 'add', ...args);
    t.is(r.code, 1, args.join(' '));
    t.is(r.stdout, '');
    t.regex(r.stderr, message);
    t.is(r.stderr.trim().split('\n').length, 1, 'one line');
    t.false(r.stderr.includes('long enough'), 'the password is not echoed');
  }
  t.false(fs.existsSync(path.join(dir, 'imgpost.sqlite')), 'the database was not even opened');
  const list = await imgpost(dir, 'user', 'list');
  t.deepEqual(JSON.parse(list.stdout), []);
});

test('user add / list / set-permission / reset-key / remove', async (t) => {
  const dir = withDataDir(t);
  const added = await imgpost(
    dir,
    'user',
    'add',
    '--name',
    'alice_1',
    '--password',
    'long enough',
    '--email',
    'a@example.org',
  );
  t.is(added.code, 0, added.stderr);
  const self = JSON.parse(added.stdout);
  t.deepEqual(Object.keys(self).sort(), SELF_KEYS, 'Self with accessKey, no passwordHash');
  t.like(self, { name: 'alice_1', email: 'a@example.org', permission: 0x4006 });
  t.regex(self.accessKey, /^[A-Za-z0-9_]{43}$/);
  t.false(added.stdout.includes('scrypt'));

  const taken = await imgpost(dir, 'user', 'add', '--name', 'ALICE_1', '--password', 'long enough');
  t.is(taken.code, 1);
  t.regex(taken.stderr, /already taken/);

  const bob = JSON.parse(
    (await imgpost(dir, 'user', 'add', '--name', 'bob_2', '--password', 'long enough', '--permission', '0x2001'))
      .stdout,
  );
  t.is(bob.permission, 0x2001);

  const list = await imgpost(dir, 'user', 'list');
  const users = JSON.parse(list.stdout) as Record<string, unknown>[];
  t.deepEqual(
    users.map((u) => u.name),
    ['alice_1', 'bob_2'],
  );
  for (const u of users) t.deepEqual(Object.keys(u).sort(), ['createdAt', 'email', 'id', 'name', 'permission']);

  for (const [bits, expected] of [
    ['0x2006', 0x2006],
    ['65310', 65310],
  ] as const) {
    const set = await imgpost(dir, 'user', 'set-permission', '--name', 'alice_1', '--permission', bits);
    t.is(set.code, 0, set.stderr);
    t.is(JSON.parse(set.stdout).permission, expected);
  }
  const badBits = await imgpost(dir, 'user', 'set-permission', '--name', 'alice_1', '--permission', 'lots');
  t.not(badBits.code, 0);
  t.regex(badBits.stderr, /--permission must be a decimal or 0x hexadecimal number/);

  const reset = await imgpost(dir, 'user', 'reset-key', '--name', 'alice_1');
  t.is(reset.code, 0, reset.stderr);
  const { accessKey } = JSON.parse(reset.stdout);
  t.deepEqual(Object.keys(JSON.parse(reset.stdout)), ['accessKey']);
  t.not(accessKey, self.accessKey);
  {
    const db = openDatabase(dir);
    const accounts = new AccountService({
      db,
      posts: postRepositoryOn(db, new UserRepository(db)),
      unitOfWork: unitOfWorkOn(db, new UserRepository(db)),
    });
    t.is(accounts.authenticateKey(self.accessKey), undefined, 'old key no longer works');
    t.like(accounts.authenticateKey(accessKey), { name: 'alice_1', permission: 65310 });
    db.close();
  }

  const removed = await imgpost(dir, 'user', 'remove', '--name', 'alice_1');
  t.is(removed.code, 0, removed.stderr);
  t.like(JSON.parse(removed.stdout), { name: 'alice_1', disownedPosts: 0 });
  t.deepEqual(
    (JSON.parse((await imgpost(dir, 'user', 'list')).stdout) as { name: string }[]).map((u) => u.name),
    ['bob_2'],
  );
  const again = await imgpost(dir, 'user', 'remove', '--name', 'alice_1');
  t.is(again.code, 1);
  t.is(again.stderr.trim(), 'imgpost user remove: no user named "alice_1"');
});

test('user --help and each subcommand --help; usage errors exit 2', async (t) => {
  const dir = withDataDir(t);
  const help = await imgpost(dir, 'user', '--help');
  t.is(help.code, 0);
  for (const sub of ['add', 'list', 'set-permission', 'reset-key', 'remove']) t.true(help.stdout.includes(sub));
  for (const sub of ['add', 'list', 'set-permission', 'reset-key', 'remove']) {
    const r = await imgpost(dir, 'user', sub, '--help');
    t.is(r.code, 0, sub);
    t.true(r.stdout.startsWith(`Usage: imgpost user ${sub}`), sub);
  }
  const top = await imgpost(dir, '--help');
  t.regex(top.stdout, /user\s+manage accounts/);
  const missing = await imgpost(dir, 'user', 'add', '--name', 'someone');
  t.is(missing.code, 2);
  t.regex(missing.stderr, /missing --password/);
  const unknown = await imgpost(dir, 'user', 'add', '--name', 'someone', '--password', 'long enough', '--admin');
  t.is(unknown.code, 2);
  t.is((await imgpost(dir, 'user', 'frobnicate')).code, 2);
});

test("user keys shows an account's app keys (and passkeys where the table exists), never a key; revoke-key and revoke-passkey remove them", async (t) => {
  const dir = withDataDir(t);
  const added = await imgpost(dir, 'user', 'add', '--name', 'keyholder', '--password', 'long enough');
  t.is(added.code, 0, added.stderr);
  const db = openDatabase(dir);
  const accounts = new AccountService({
    db,
    posts: postRepositoryOn(db, new UserRepository(db)),
    unitOfWork: unitOfWorkOn(db, new UserRepository(db)),
  });
  const owner = accounts.users.getByName('keyholder')!;
  const made = accounts.appKeys.create(
    { id: owner.id, name: owner.name, permission: owner.permission },
    { name: 'bot', permission: 2 },
  );
  // A passkey as registration stores it (the ceremony itself is test/passkeys/passkeys.test.ts's).
  const passkeyId = new PasskeyRepository(db).insert({
    userId: owner.id,
    credentialId: 'cred-1',
    publicKey: Buffer.from('not a real key'),
    counter: 0,
    transports: [],
    name: 'laptop',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  db.close();

  const shown = await imgpost(dir, 'user', 'keys', '--name', 'keyholder', '--json');
  t.is(shown.code, 0, shown.stderr);
  const listing = JSON.parse(shown.stdout) as {
    appKeys: { id: number; name: string }[];
    passkeys: { id: number; name: string }[];
  };
  t.like(listing.appKeys, [{ id: made.id, name: 'bot', permission: 2 }]);
  t.like(listing.passkeys, [{ id: passkeyId, name: 'laptop' }]);
  t.false(shown.stdout.includes(made.key));

  t.is((await imgpost(dir, 'user', 'revoke-key', '--name', 'keyholder', '--id', String(made.id))).code, 0);
  t.is((await imgpost(dir, 'user', 'revoke-passkey', '--name', 'keyholder', '--id', String(passkeyId))).code, 0);
  const missing = await imgpost(dir, 'user', 'revoke-key', '--name', 'keyholder', '--id', String(made.id));
  t.is(missing.code, 1);
  t.regex(missing.stderr, /no such app key/);
  const after = JSON.parse((await imgpost(dir, 'user', 'keys', '--name', 'keyholder')).stdout) as {
    appKeys: unknown[];
    passkeys: unknown[];
  };
  t.deepEqual(after, { name: 'keyholder', appKeys: [], passkeys: [] });
  const help = await imgpost(dir, 'user', 'keys', '--help');
  t.regex(help.stdout, /Usage: imgpost user keys --name NAME/);
});
