/**
 * The one argument parser of bench/: every script reads its flags and positionals through `parseCli`
 * (node:util parseArgs, strict), so `--help` prints the script's usage everywhere and a flag it does
 * not know stops it with that usage (exit 2) instead of being ignored.
 */
import fs from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

export interface CliSpec<O extends Options> {
  /** printed by --help and after a wrong flag */
  usage: string;
  options?: O;
  /** the script takes positional arguments (named in `usage`) */
  positionals?: boolean;
  /** the arguments (default: the process's, after the script's path) */
  argv?: string[];
}

/** Stops the script with `message` and the usage (exit 2). */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`${message}\n\n${usage.trimEnd()}\n`);
  process.exit(2);
}

export function parseCli<const O extends Options = Record<never, never>>(spec: CliSpec<O>): Parsed<O> {
  const options: Options = { ...spec.options, help: { type: 'boolean', short: 'h' } };
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({
      args: spec.argv ?? process.argv.slice(2),
      options: options as O,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    usageError(spec.usage, (err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${spec.usage.trimEnd()}\n`);
    process.exit(0);
  }
  if (!spec.positionals && parsed.positionals.length > 0)
    usageError(spec.usage, `unexpected argument: ${parsed.positionals[0]}`);
  return parsed;
}

/** A number given as a flag or positional (`1_000_000` allowed), or `fallback` when absent. */
export const numberArg = (value: string | boolean | undefined, fallback: number): number =>
  typeof value === 'string' ? Number(value.replace(/_/g, '')) : fallback;

/** The usage of a script whose header comment says how it is run: that comment. */
export const headerOf = (moduleUrl: string): string =>
  `${fs.readFileSync(new URL(moduleUrl), 'utf8').split('*/')[0]}*/\n`;

/** The command line as typed after `prefix` (`npm run bench --`), for the reports that name how they were made. */
export const commandLine = (prefix: string): string =>
  `${prefix}${process.argv
    .slice(2)
    .map((a) => ` ${/[\s'"]/.test(a) ? `'${a}'` : a}`)
    .join('')}`;

/** Runs `main` when the file is the process's entry point; a failure prints its stack and exits 1. */
export function runIfMain(moduleUrl: string, main: () => Promise<unknown>): void {
  if (!isMain(moduleUrl)) return;
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}

/** The file is the process's entry point (`npx tsx bench/NAME.ts`), not imported by another. */
export const isMain = (moduleUrl: string): boolean => moduleUrl === `file://${process.argv[1]}`;
