import { parseArgs } from 'node:util';
import { checkPermission, type NewUserInput, validateNewUser } from '../accounts/account-rules.ts';
import type { AccountService } from '../accounts/service.ts';
import { loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { jobsRole } from './jobs-role.ts';

/**
 * `imgpost user ...` (docs/decisions.md §1): account administration straight on the SQLite file in
 * DATA_DIR. Elasticsearch is not started: the 'reindex' rows that `user remove` writes to the
 * outbox are applied by the server's relay when it next runs.
 */

const USAGE = `Usage: imgpost user <command> [options]

Manages accounts in the database in DATA_DIR (default ./data). Output is JSON on stdout
(--json is accepted everywhere and changes nothing).

Commands:
  add             create an account; prints it (with its access key)
  list            list accounts (without access keys)
  set-permission  change an account's permission bits
  reset-key       give an account a new access key; prints it
  remove          delete an account; its posts stay, without an owner
  keys            show an account's app keys (and passkeys), never the keys themselves
  revoke-key      revoke one of an account's app keys
  revoke-passkey  remove one of an account's passkeys

Run \`imgpost user <command> --help\` for a command's options.
`;

const PERMISSION_HELP = `Permission bits: 0x1 super user, 0x2 create post, 0x4 edit post, 0x100 list users, 0x200 edit users,
0x400 delete users, 0x800 assign permissions, 0x1000 govern tags, 0x2000 delete post, 0x4000 comment.
Decimal or 0x hexadecimal.`;

interface Subcommand {
  usage: string;
  options: Record<string, { type: 'string' }>;
  required: string[];
  /** Checks the arguments before the database is opened, so a bad call changes nothing. */
  check?(args: Args): void;
  run(accounts: AccountService, args: Args): Promise<unknown> | unknown;
}

interface Args {
  values: Record<string, string | undefined>;
  permission?: number;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  add: {
    usage: `Usage: imgpost user add --name NAME --password PASSWORD [--permission BITS] [--email EMAIL]

Creates an account and prints it as JSON, including its access key.
  --name        4 to 32 letters, digits or underscores
  --password    at least 8 characters; \`-\` reads it from the first line of stdin
                (keeps it out of the shell history and the process list)
  --permission  default 0x4006 (create + edit + comment)
  --email       optional
${PERMISSION_HELP}
`,
    options: {
      name: { type: 'string' },
      password: { type: 'string' },
      permission: { type: 'string' },
      email: { type: 'string' },
    },
    required: ['name', 'password'],
    check: (a) => void validateNewUser(newUser(a)),
    run: (accounts, a) => accounts.createUser(newUser(a)),
  },
  list: {
    usage: 'Usage: imgpost user list\n\nPrints every account as a JSON array (access keys left out).\n',
    options: {},
    required: [],
    run: (accounts) => accounts.list(),
  },
  'set-permission': {
    usage: `Usage: imgpost user set-permission --name NAME --permission BITS\n\nSets the account's permission and prints it.\n${PERMISSION_HELP}\n`,
    options: { name: { type: 'string' }, permission: { type: 'string' } },
    required: ['name', 'permission'],
    check: (a) => checkPermission(a.permission!),
    run: (accounts, a) => accounts.setPermission(a.values.name!, a.permission!),
  },
  'reset-key': {
    usage:
      'Usage: imgpost user reset-key --name NAME\n\nReplaces the access key (the old one stops working at once) and prints { "accessKey": ... }.\n',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (accounts, a) => accounts.resetKeyByName(a.values.name!),
  },
  remove: {
    usage:
      'Usage: imgpost user remove --name NAME\n\nDeletes the account and its webhooks. Its posts stay, without an owner.\n',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (accounts, a) => accounts.remove(a.values.name!),
  },
  keys: {
    usage: `Usage: imgpost user keys --name NAME [--json]

Prints the account's app keys (id, name, permission, createdAt) and, where the database has
passkeys, its passkeys (id, name, createdAt). The keys themselves are never stored, so never shown.
`,
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (accounts, a) => accounts.credentialsOf(a.values.name!),
  },
  'revoke-key': {
    usage:
      'Usage: imgpost user revoke-key --name NAME --id ID [--json]\n\nRevokes the app key ID (as `imgpost user keys` lists it); it stops working at once.\n',
    options: { name: { type: 'string' }, id: { type: 'string' } },
    required: ['name', 'id'],
    run: (accounts, a) => accounts.revokeCredential(a.values.name!, 'app-key', a.values.id!),
  },
  'revoke-passkey': {
    usage:
      'Usage: imgpost user revoke-passkey --name NAME --id ID [--json]\n\nRemoves the passkey ID (as `imgpost user keys` lists it); it no longer signs in.\n',
    options: { name: { type: 'string' }, id: { type: 'string' } },
    required: ['name', 'id'],
    run: (accounts, a) => accounts.revokeCredential(a.values.name!, 'passkey', a.values.id!),
  },
};

class UsageError extends Error {}

const newUser = ({ values, permission }: Args): NewUserInput => ({
  name: values.name!,
  password: values.password!,
  permission,
  email: values.email,
});

/** Decimal or 0x hexadecimal; the range is checked by the service. */
function parsePermission(text: string): number {
  const t = text.trim();
  if (/^0x[0-9a-f]+$/i.test(t)) return parseInt(t.slice(2), 16);
  if (/^\d+$/.test(t)) return Number(t);
  throw new UsageError(`--permission must be a decimal or 0x hexadecimal number, not "${text}"`);
}

async function readFirstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h' || arg === 'help';

export async function run(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (isHelp(name)) {
    process.stdout.write(USAGE);
    return 0;
  }
  const sub = name !== undefined && Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (!sub) {
    process.stderr.write(name === undefined ? USAGE : `imgpost user: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  if (rest.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(sub.usage);
    return 0;
  }

  let parsed: Args;
  try {
    const { values } = parseArgs({
      args: rest,
      options: { ...sub.options, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }) as unknown as {
      values: Record<string, string | undefined>;
    };
    const missing = sub.required.filter((o) => values[o] === undefined);
    if (missing.length > 0) throw new UsageError(`missing ${missing.map((o) => `--${o}`).join(', ')}`);
    if (values.password === '-') values.password = await readFirstLine(process.stdin);
    parsed = { values, permission: values.permission === undefined ? undefined : parsePermission(values.permission) };
  } catch (err) {
    process.stderr.write(`imgpost user ${name}: ${(err as Error).message}\n\n${sub.usage}`);
    return 2;
  }

  try {
    sub.check?.(parsed);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // Expected failures (bad name, short password, bad permission) are one line, exit 1.
    process.stderr.write(`imgpost user ${name}: ${err.message}\n`);
    return 1;
  }

  const config = loadConfig();
  const { openAccountsJob } = await jobsRole();
  const job = openAccountsJob(config);
  try {
    const result = await sub.run(job.accounts, parsed);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    // Unknown user, name already taken: one line, exit 1.
    if (!(err instanceof AppError)) throw err;
    process.stderr.write(`imgpost user ${name}: ${err.message}\n`);
    return 1;
  } finally {
    job.close();
  }
}
