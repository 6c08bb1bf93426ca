/**
 * `npm run bench`: the one entry point of the benchmarks (bench/README.md).
 *   npm run bench -- [--quick] [--sizes …] [--only core|webhook-drain|SECTION] …   the suite (bench/suite.ts)
 *   npm run bench -- NAME [flags]   (or --only NAME)   a figure run on its own (bench/commands.ts)
 *   npm run bench -- --help                            all of them
 * A figure run on its own is bench/NAME.ts in a child process with the same Node and loader, given the
 * flags after its name; SIGTERM is passed on to it, and its exit status is this one's.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS } from './commands.ts';

const argv = process.argv.slice(2);

/** `NAME …` or `--only NAME …` / `--only=NAME …` naming a command: its name and the flags left for it. */
function commandOf(args: string[]): { name: string; rest: string[] } | undefined {
  if (args[0] !== undefined && Object.hasOwn(COMMANDS, args[0])) return { name: args[0], rest: args.slice(1) };
  const at = args.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (at < 0) return undefined;
  const name = args[at] === '--only' ? args[at + 1] : args[at].slice('--only='.length);
  if (name === undefined || !Object.hasOwn(COMMANDS, name)) return undefined;
  return { name, rest: [...args.slice(0, at), ...args.slice(at + (args[at] === '--only' ? 2 : 1))] };
}

const command = commandOf(argv);
if (command) {
  const file = path.join(import.meta.dirname, `${command.name}.ts`);
  const child = spawn(process.execPath, [...process.execArgv, file, ...command.rest], { stdio: 'inherit' });
  // Ctrl-C reaches the child from the terminal (the same process group): this process only waits for it.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
} else {
  const { runSuite } = await import('./suite.ts');
  runSuite();
}
