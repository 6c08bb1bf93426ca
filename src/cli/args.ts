import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The start every command shares, so each answers a bad call alike: its options parsed (a usage
 * error prints the message and the usage on stderr: exit 2), `--help` printing the usage on stdout
 * (exit 0) and, given `one`, the name of its one positional argument (DEST, SRC), that one argument
 * checked. Returns the parsed arguments, or the exit status to end with.
 */
export function parseCommand<T extends ParseArgsConfig>(
  command: string,
  usage: string,
  config: T,
  one?: string,
): ReturnType<typeof parseArgs<T>> | number {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    process.stderr.write(`imgpost ${command}: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return 0;
  }
  const count = (parsed.positionals as string[]).length;
  if (one !== undefined && count !== 1) {
    process.stderr.write(`imgpost ${command}: ${count ? `exactly one ${one}` : `${one} is missing`}\n\n${usage}`);
    return 2;
  }
  return parsed;
}
