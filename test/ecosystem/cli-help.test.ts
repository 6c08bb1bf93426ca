/**
 * Every `imgpost` command answers --help with usage on stdout and exit status 0, and the top-level
 * help documents the exit statuses. Each check is a real child process (slow), so the set is
 * small: the root help, one per command it lists, one subcommand, and two usage errors.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { tempDir } from '../helpers/app.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// --help must never touch data; a fresh DATA_DIR proves it does not need any.
const env = { ...process.env, DATA_DIR: tempDir('imgpost-cli-help') };

function imgpost(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_JS, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let rootHelp: { code: number; stdout: string; stderr: string };
test.before(async () => {
  rootHelp = await imgpost('--help');
});
test.after.always(() => fs.rmSync(env.DATA_DIR, { recursive: true, force: true }));

/** Command names from the "Commands:" section of `imgpost --help`. */
const listedCommands = () => {
  const section = rootHelp.stdout.split(/\nCommands:\n/)[1]?.split(/\n\n/)[0] ?? '';
  return section
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0])
    .filter(Boolean);
};

test('imgpost --help: usage, every command, exit statuses', (t) => {
  t.is(rootHelp.code, 0, rootHelp.stderr);
  t.regex(rootHelp.stdout, /^Usage: imgpost <command>/);
  for (const c of ['es', 'user', 'import', 'rethumb', 'backup', 'restore']) t.true(listedCommands().includes(c), c);
  t.regex(rootHelp.stdout, /Exit status:\n\s+0\s+success\n\s+1\s+.+\n(.+\n)*\s+2\s+usage error/);
});

test('each command answers --help with its usage and exit status 0', async (t) => {
  const commands = listedCommands();
  t.true(commands.length >= 5, `commands: ${commands.join(', ')}`);
  const results = await Promise.all(commands.map((c) => imgpost(c, '--help')));
  results.forEach((r, i) => {
    t.is(r.code, 0, `${commands[i]} --help: ${r.stderr}`);
    t.regex(r.stdout, new RegExp(`^Usage: imgpost ${commands[i]}\\b`), commands[i]);
  });
});

test('subcommands answer --help too; usage errors exit 2', async (t) => {
  const [userAdd, esStart, unknown, badOption] = await Promise.all([
    imgpost('user', 'add', '--help'),
    imgpost('es', 'start', '--help'),
    imgpost('no-such-command'),
    imgpost('rethumb', '--no-such-option'),
  ]);
  t.is(userAdd.code, 0, userAdd.stderr);
  t.regex(userAdd.stdout, /^Usage: imgpost user add/);
  t.is(esStart.code, 0, esStart.stderr);
  t.regex(esStart.stdout, /^Usage: imgpost es/);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /unknown command "no-such-command"/);
  t.is(badOption.code, 2);
  t.regex(badOption.stderr, /Usage: imgpost rethumb/);
});
